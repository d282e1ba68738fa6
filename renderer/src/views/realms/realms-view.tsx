/**
 * Realms of the selected connection: badges (auth required/open, who may consume — issue 20 —,
 * ephemeral with a live countdown, keys, acceptance), creation (permanent or ephemeral with a TTL), and per-realm
 * actions (realm-manage.tsx). The list reloads every 3 s and right after a realm's expiry, so an
 * expired ephemeral realm leaves the list on time.
 */
import { useCallback, useEffect, useState } from 'react';
import type { RealmList } from '../../../../shared/console-api';
import type { GeneratedSecret } from '../../../../shared/console-api-realms';
import type { ConsoleClient } from '../../api/console-client';
import { ConnectionProblem } from '../../components/connection-problem';
import { ErrorBanner } from '../../components/error-banner';
import { useAppStore } from '../../store/app-store';
import '../../styles/realms.css';
import { RealmBadges } from './realm-badges';
import { RealmManage } from './realm-manage';
import { SecretReveal, secretOutlived } from './secret-reveal';
import { useConnectionId } from '../../hooks/use-connection-id';
import { useConsoleAction } from '../../hooks/use-console-action';
import { usePolled } from '../../hooks/use-polled';
import { useNow } from '../../hooks/use-now';
import { TextField, CheckField } from '../../components/form-fields';
import { Page } from '../../components/page';

const RELOAD_MS = 3_000;

function CreateRealm({
  client,
  connectionId,
  reload,
  action,
}: {
  client: ConsoleClient;
  connectionId: string;
  reload: () => Promise<void>;
  action: ReturnType<typeof useConsoleAction>;
}) {
  const [name, setName] = useState('');
  const [authRequired, setAuthRequired] = useState(true);
  const [tokenless, setTokenless] = useState(false);
  const [ephemeral, setEphemeral] = useState(false);
  const [ttl, setTtl] = useState('1h');
  const create = async () => {
    const done = await action.run(
      () =>
        client.api.createRealm({
          connectionId,
          realm: name.trim(),
          authRequired,
          ephemeral,
          ...(ephemeral && ttl.trim() ? { ttl: ttl.trim() } : {}),
          ...(authRequired && tokenless ? { tokenlessConsumers: true } : {}),
        }),
      (v) => v.summary,
      reload,
    );
    if (done) setName('');
  };
  return (
    <form
      className="panel create-realm"
      aria-label="Create a realm"
      onSubmit={(e) => {
        e.preventDefault();
        void create();
      }}
    >
      <label className="field field--grow">
        <span>New realm</span>
        <input
          value={name}
          maxLength={256}
          placeholder="e.g. org:acme"
          onChange={(e) => setName(e.target.value)}
          data-testid="realm-create-name"
        />
      </label>
      <CheckField checked={authRequired} onChecked={setAuthRequired} testId="realm-create-auth">
        auth required
      </CheckField>
      <label
        className="check"
        title="The reference's rule: anyone who knows the realm's name may subscribe and read every message. Leave off unless the realm's readers cannot present a token or key."
      >
        <input
          type="checkbox"
          checked={authRequired && tokenless}
          disabled={!authRequired}
          onChange={(e) => setTokenless(e.target.checked)}
          aria-describedby="realm-create-tokenless-hint"
          data-testid="realm-create-tokenless"
        />
        allow token-less consumers
      </label>
      <CheckField checked={ephemeral} onChecked={setEphemeral} testId="realm-create-ephemeral">
        ephemeral
      </CheckField>
      {ephemeral && (
        <TextField
          label="TTL"
          inputClass="input--short"
          value={ttl}
          onValue={setTtl}
          testId="realm-create-ttl"
        />
      )}
      <button
        type="submit"
        className="button button--primary"
        disabled={action.busy || !name.trim()}
        data-testid="realm-create"
      >
        Create
      </button>
      <p
        className="muted small-inline create-realm__hint"
        id="realm-create-tokenless-hint"
        data-testid="realm-create-hint"
      >
        {!authRequired
          ? 'Open realm: any client may produce and consume without a credential.'
          : `${
              tokenless
                ? 'Reference mode: consumers may connect with no token or key — anyone who knows the name can read every message.'
                : 'Consumers need a token (an approved request or a JWT) or the realm’s pre-shared key.'
            } Producers need a token too (acceptance); Manage turns that off.`}
      </p>
    </form>
  );
}

export function RealmsView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const connectionName = useAppStore(
    (s) =>
      s.connections.find((c) => c.id === connectionId)?.name ??
      (connectionId === 'local' ? 'Local broker' : connectionId),
  );
  const now = useNow();
  const action = useConsoleAction();
  const {
    value: list,
    error: loadError,
    reload,
  } = usePolled(
    useCallback(() => client.api.listRealms({ connectionId }), [client, connectionId]),
    RELOAD_MS,
  );
  const [open, setOpen] = useState<string | null>(null);
  const [secret, setSecret] = useState<GeneratedSecret | null>(null);

  // Reload right after the next expiry (the broker disposes within a second of it).
  const nextExpiry = list?.realms.reduce<number | null>(
    (min, r) => (r.expiresAt !== null && (min === null || r.expiresAt < min) ? r.expiresAt : min),
    null,
  );
  useEffect(() => {
    if (nextExpiry === null || nextExpiry === undefined) return undefined;
    const timer = setTimeout(() => void reload(), Math.max(0, nextExpiry - Date.now()) + 600);
    return () => clearTimeout(timer);
  }, [nextExpiry, reload]);

  return (
    <Page
      testId="realms-view"
      title="Realms"
      intro={
        <>
          {connectionName} ·{' '}
          {list
            ? `${list.realms.length} configured ${list.realms.length === 1 ? 'realm' : 'realms'}${list.inUse.length > 0 ? `, ${list.inUse.length} more in use` : ''}`
            : loadError
              ? 'realms unavailable'
              : 'loading'}{' '}
          · every change is a signed management command, recorded in Activity
        </>
      }
    >
      <ConnectionProblem
        error={loadError}
        connectionId={connectionId}
        what="its realms"
        testId="realms-credential-problem"
      />
      {secret && (
        <SecretReveal
          secret={secret}
          onDone={() => setSecret(null)}
          outlived={secretOutlived(secret, list?.realms)}
        />
      )}
      <ErrorBanner
        title="Action failed:"
        message={action.error?.message}
        testId="realms-action-error"
      />
      {action.message && (
        <p className="action-line" role="status" data-testid="realms-message">
          {action.message}
        </p>
      )}
      {list && !list.authEnabled && (
        <p className="muted">Authentication is off on this broker: every realm is open.</p>
      )}
      {(list || !loadError) && (
        <CreateRealm client={client} connectionId={connectionId} reload={reload} action={action} />
      )}
      <ul className="realm-list" data-testid="realms-list">
        {list?.realms.map((realm) => (
          <li key={realm.name} className="realm-card" data-testid={`realms-row-${realm.name}`}>
            <div className="realm-card__head">
              <span className="realm-row__name">{realm.name}</span>
              <RealmBadges realm={realm} now={now} />
              <button
                type="button"
                className="button realm-card__toggle"
                aria-expanded={open === realm.name}
                onClick={() => setOpen(open === realm.name ? null : realm.name)}
                data-testid={`realm-toggle-${realm.name}`}
              >
                {open === realm.name ? 'Close' : 'Manage'}
              </button>
            </div>
            {open === realm.name && (
              <RealmManage
                client={client}
                connectionId={connectionId}
                realm={realm}
                action={action}
                onSecret={setSecret}
                reload={reload}
              />
            )}
          </li>
        ))}
      </ul>
      {list && list.inUse.length > 0 && <RealmsInUse list={list} />}
      {list && list.realms.length === 0 && list.inUse.length === 0 && (
        <p className="muted" data-testid="realms-empty">
          No realm is configured on this broker and no client is connected to one. Clients that
          connect without naming a realm use <code>default</code>.
        </p>
      )}
    </Page>
  );
}

/**
 * Realms clients are using that the settings do not configure: a remote broker with no
 * `auth.realms` block otherwise shows "0 realms" while its clients are busy in several.
 */
function RealmsInUse({ list }: { list: RealmList }) {
  const clients = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  return (
    <section className="panel realms-in-use" data-testid="realms-in-use">
      <h3 className="panel__title">In use, not configured</h3>
      <p className="muted">
        {list.authEnabled
          ? 'Clients are connected to these realms, which have no settings entry: the broker-wide defaults govern them. Create one with the same name to set its keys and policies.'
          : 'Clients are connected to these realms. Authentication is off, so they are open.'}
      </p>
      <ul className="realm-list">
        {list.inUse.map((realm) => (
          <li key={realm.name} className="realm-card" data-testid={`realms-in-use-${realm.name}`}>
            <div className="realm-card__head">
              <span className="realm-row__name">{realm.name}</span>
              <span className="muted">
                {clients(realm.producers, 'producer')} · {clients(realm.consumers, 'consumer')}{' '}
                online
              </span>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
