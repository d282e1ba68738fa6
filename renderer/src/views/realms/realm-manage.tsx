/**
 * The actions on one realm (Realms view): lifetime ("Permanent", or the ephemeral realm's TTL in
 * the field; extend, convert), switches (auth, producer acceptance, token-less consumers — issue
 * 20 — with what the realm then admits), keys (generate / rotate / clear the pre-shared key and the manager key; a
 * generated one is handed to `onSecret` for the one-shot reveal; the reply says how many
 * sessions a rotation ended), "require key on/off" as one confirmed action (it keeps the key —
 * Switchboard's `set_realm_require_key`; a realm without a key gets one), ending every
 * session of the realm (two clicks), and removal with type-the-name confirmation. Each is one
 * signed management command (§8.2).
 */
import { useState } from 'react';
import type { RealmSummary } from '../../../../shared/console-api';
import type { GeneratedSecret } from '../../../../shared/console-api-realms';
import { formatRealmTtl } from '../../../../shared/realm-ttl';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import type { ConsoleAction } from '../../hooks/use-console-action';

export interface RealmManageProps {
  client: ConsoleClient;
  connectionId: string;
  realm: RealmSummary;
  action: ConsoleAction;
  onSecret: (secret: GeneratedSecret) => void;
  reload: () => Promise<void>;
}

const STRUCTURAL = new Set(['default', '*']);

/** Who may connect, in a sentence (issue 20). */
/** The realm switches shown as checkboxes, and the summary field each one sets. */
type SwitchFlag = 'auth' | 'acceptance' | 'tokenlessConsumers';
const SWITCH_FIELDS = {
  auth: 'authRequired',
  acceptance: 'acceptanceRequired',
  tokenlessConsumers: 'tokenlessConsumers',
} as const satisfies Record<SwitchFlag, keyof RealmSummary>;
/** How long a switch waits for the realm list to show a change the broker accepted, ms. */
const ASKED_HOLD_MS = 5_000;

export function consumerAccessText(realm: RealmSummary): string {
  const producers = realm.acceptanceRequired
    ? 'producers need a token (acceptance)'
    : 'producers may connect without a token';
  switch (realm.consumerAccess) {
    case 'open':
      return 'Who can connect: anyone — this realm does not require auth.';
    case 'token':
      return `Who can connect: consumers need a token (an approved request or a JWT); ${producers}.`;
    case 'token-or-key':
      return `Who can connect: consumers need a token or the pre-shared key; ${producers}.`;
    case 'tokenless':
      return `Who can connect: token-less consumers allowed (reference mode) — anyone who knows the name can subscribe to # and read every message; ${producers}.`;
  }
}

/**
 * What "Require key" on/off means for consumers, in words that agree with `consumerAccessText`:
 * with the key off and token-less consumers refused, the key admits nobody — a token does.
 */
export function keyRequiredText(
  realm: Pick<RealmSummary, 'keyRequired' | 'tokenlessConsumers'>,
): string {
  if (realm.keyRequired) return 'consumers without a token must present the key';
  return realm.tokenlessConsumers
    ? 'consumers without a token need no key'
    : 'the key is not asked for; consumers need a token';
}

/**
 * What the lifetime field starts with: the realm's own TTL (`ttlMs`), else — a broker that does
 * not report it — the time left rounded up to a minute. Empty for a permanent realm: it has no
 * TTL, and a suggested one in the field read as the realm's lifetime (newcomer trial, issue 27).
 */
export function initialTtlText(realm: RealmSummary, now = Date.now()): string {
  if (!realm.ephemeral) return '';
  const own = formatRealmTtl(realm.ttlMs);
  if (own) return own;
  if (realm.expiresAt !== null && realm.expiresAt > now) {
    return `${Math.ceil((realm.expiresAt - now) / 60_000)}m`;
  }
  return '';
}

/** The realm's lifetime in words: "Permanent", or "Ephemeral" with its TTL when known (§9). */
export function lifetimeText(realm: Pick<RealmSummary, 'ephemeral' | 'ttlMs'>): string {
  if (!realm.ephemeral) return 'Permanent';
  const ttl = formatRealmTtl(realm.ttlMs);
  return ttl ? `Ephemeral · TTL ${ttl}` : 'Ephemeral';
}

/** The one "require key" action: what it does, what it calls, and what changes for consumers. */
export function requireKeyPlan(realm: RealmSummary): {
  label: string;
  next: boolean;
  rotates: boolean;
  consequence: string;
} {
  const next = !realm.keyRequired;
  // Only the requirement changes (`set_realm_require_key` keeps the key); a rotation is the
  // explicit Rotate action. A realm without a key gets one, or "on" would admit no keyed client.
  const rotates = !realm.keyConfigured && next;
  const keyPart = realm.keyConfigured
    ? 'The pre-shared key is kept (Rotate replaces it). '
    : next
      ? 'A pre-shared key is generated and shown once. '
      : '';
  const effect = next
    ? 'Consumers that connect without a token must then present the key.'
    : realm.tokenlessConsumers
      ? 'Consumers that connect without a token no longer need the key — and since token-less consumers are allowed here, anyone who knows the realm’s name can read it.'
      : 'Consumers that connect without a token no longer need the key; token-less consumers are not allowed here, so they need a token.';
  const label = `Require key ${next ? 'on' : 'off'}${rotates ? ' (generates a key)' : ''}`;
  return { label, next, rotates, consequence: `${keyPart}${effect}` };
}

export function RealmManage({
  client,
  connectionId,
  realm,
  action,
  onSecret,
  reload,
}: RealmManageProps) {
  const [ttl, setTtl] = useState(() => initialTtlText(realm));
  // A new TTL from the broker (after an action, or another console) replaces the field's text
  // (adjusted while rendering, React's pattern for state derived from a changed prop).
  const ttlKey = `${realm.ephemeral}:${realm.ttlMs}`;
  const [shownTtlKey, setShownTtlKey] = useState(ttlKey);
  if (shownTtlKey !== ttlKey) {
    setShownTtlKey(ttlKey);
    setTtl(initialTtlText(realm));
  }
  const [confirmRotate, setConfirmRotate] = useState<'realmKey' | 'managerKey' | null>(null);
  const [confirmEnd, setConfirmEnd] = useState(false);
  const [askRequireKey, setAskRequireKey] = useState(false);
  const plan = requireKeyPlan(realm);
  const [typed, setTyped] = useState('');
  const name = realm.name;
  const id = (suffix: string): string => `realm-${suffix}-${name}`;
  const structural = STRUCTURAL.has(name);
  const base = { connectionId, realm: name };

  // A switch shows what was asked at once and stays disabled until the realm list says so:
  // a controlled checkbox would otherwise keep its old state until the broker's answer and the
  // next reload, and a second click on a box that looks unchanged would flip it back.
  const [asked, setAsked] = useState<{ flag: SwitchFlag; value: boolean } | null>(null);
  const current = (f: SwitchFlag): boolean => realm[SWITCH_FIELDS[f]];
  const waiting = (f: SwitchFlag): boolean =>
    asked !== null && asked.flag === f && current(f) !== asked.value;
  const shown = (f: SwitchFlag): boolean => (waiting(f) ? asked!.value : current(f));
  const switchFlag = (f: SwitchFlag, value: boolean) => {
    setAsked({ flag: f, value });
    void flag(f, value).then((done) => {
      if (!done) setAsked(null);
      // A list that lags the broker must not keep the switch disabled for good.
      else setTimeout(() => setAsked((now) => (now?.flag === f ? null : now)), ASKED_HOLD_MS);
    });
  };

  const flag = (
    flagName: 'auth' | 'acceptance' | 'keyRequired' | 'tokenlessConsumers',
    value: boolean,
  ) =>
    action.run(
      () => client.api.setRealmFlag({ ...base, flag: flagName, value }),
      (v) => v.summary,
      reload,
    );

  // A rotation keeps the realm's "require key"; a first key requires it (the usual intent).
  const generate = async (
    kind: 'realmKey' | 'managerKey',
    requireKey = realm.keyConfigured ? realm.keyRequired : true,
  ) => {
    setConfirmRotate(null);
    const secret = await action.run(
      () =>
        client.api.revealGeneratedSecret({
          ...base,
          kind,
          ...(kind === 'realmKey' ? { requireKey } : {}),
        }),
      // The summary never repeats the secret: it is shown by the reveal panel only.
      (value) => value.summary,
      reload,
    );
    if (secret) onSecret(secret);
  };
  const changeRequireKey = (): void => {
    setAskRequireKey(false);
    if (plan.rotates) void generate('realmKey', plan.next);
    else void flag('keyRequired', plan.next);
  };
  const onKey = (kind: 'realmKey' | 'managerKey', configured: boolean) => {
    if (configured && confirmRotate !== kind) setConfirmRotate(kind);
    else void generate(kind);
  };

  const keyRow = (kind: 'realmKey' | 'managerKey', label: string, configured: boolean) => (
    <div className="manage-row">
      <span className="manage-row__label">{label}</span>
      <span className="row-actions">
        <button
          type="button"
          className="button"
          disabled={action.busy}
          onClick={() => onKey(kind, configured)}
          data-testid={id(`${kind}-generate`)}
        >
          {!configured ? 'Generate' : confirmRotate === kind ? 'Confirm rotate' : 'Rotate'}
        </button>
        {configured && (
          <button
            type="button"
            className="button button--danger"
            disabled={action.busy}
            onClick={() =>
              void action.run(
                () => client.api.clearRealmSecret({ ...base, kind }),
                (v) => v.summary,
                reload,
              )
            }
            data-testid={id(`${kind}-clear`)}
          >
            Clear
          </button>
        )}
        {kind === 'realmKey' && !configured && (
          <span className="muted small-inline" data-testid={id('realmKey-first-hint')}>
            A first key is required from then on (consumers show it, or a token); turn "Require key"
            off after to keep it optional.
          </span>
        )}
        {confirmRotate === kind && (
          <span className="muted small-inline">
            Rotating ends the live sessions that used the old key and refuses it from then on.{' '}
            <button type="button" className="link-button" onClick={() => setConfirmRotate(null)}>
              Cancel
            </button>
          </span>
        )}
      </span>
    </div>
  );

  return (
    <div className="realm-manage" data-testid={id('manage')}>
      {!structural && (
        <div className="manage-row">
          <span className="manage-row__label">Lifetime</span>
          <span className="row-actions">
            <span data-testid={id('lifetime')}>{lifetimeText(realm)}</span>
            <input
              className="input input--short"
              aria-label={realm.ephemeral ? `TTL for ${name}` : `TTL to make ${name} ephemeral`}
              placeholder={realm.ephemeral ? undefined : 'TTL, e.g. 1h'}
              value={ttl}
              onChange={(e) => setTtl(e.target.value)}
              data-testid={id('ttl')}
            />
            <button
              type="button"
              className="button"
              disabled={action.busy || !ttl.trim()}
              onClick={() =>
                void action.run(
                  () => client.api.setRealmLifetime({ ...base, ephemeral: true, ttl: ttl.trim() }),
                  (v) => v.summary,
                  reload,
                )
              }
              data-testid={id('extend')}
            >
              {realm.ephemeral ? 'Expire in TTL' : 'Make ephemeral'}
            </button>
            {realm.ephemeral && (
              <button
                type="button"
                className="button"
                disabled={action.busy}
                onClick={() =>
                  void action.run(
                    () => client.api.setRealmLifetime({ ...base, ephemeral: false }),
                    (v) => v.summary,
                    reload,
                  )
                }
                data-testid={id('permanent')}
              >
                Make permanent
              </button>
            )}
          </span>
        </div>
      )}
      <div className="manage-row">
        <span className="manage-row__label">Switches</span>
        <span className="row-actions">
          <label className="check">
            <input
              type="checkbox"
              checked={shown('auth')}
              disabled={action.busy || waiting('auth') || name === '*'}
              onChange={(e) => switchFlag('auth', e.target.checked)}
              data-testid={id('auth')}
            />
            auth required
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={shown('acceptance')}
              disabled={action.busy || waiting('acceptance') || name === '*'}
              onChange={(e) => switchFlag('acceptance', e.target.checked)}
              data-testid={id('acceptance')}
            />
            producers need acceptance
          </label>
          <label
            className="check"
            title="The reference's rule: consumers may connect with no token or key, so anyone who knows the realm's name can read it."
          >
            <input
              type="checkbox"
              checked={shown('tokenlessConsumers')}
              disabled={action.busy || waiting('tokenlessConsumers') || name === '*'}
              onChange={(e) => switchFlag('tokenlessConsumers', e.target.checked)}
              aria-describedby={id('tokenless-hint')}
              data-testid={id('tokenless')}
            />
            allow token-less consumers
          </label>
        </span>
      </div>
      <p className="muted small-inline" id={id('tokenless-hint')} data-testid={id('access')}>
        {consumerAccessText(realm)}
      </p>
      {keyRow('realmKey', 'Pre-shared key', realm.keyConfigured)}
      <div className="manage-row">
        <span className="manage-row__label">Require key</span>
        <span className="row-actions">
          <span data-testid={id('key-required-state')}>
            {realm.keyRequired ? 'on' : 'off'}
            <span className="muted">{` — ${keyRequiredText(realm)}`}</span>
          </span>
          <button
            type="button"
            className="button"
            disabled={action.busy || name === '*'}
            onClick={() => setAskRequireKey(true)}
            data-testid={id('require-key')}
          >
            {plan.label}
          </button>
        </span>
      </div>
      {askRequireKey && (
        <ConfirmPanel
          tone="primary"
          confirmLabel={plan.label}
          onConfirm={changeRequireKey}
          onCancel={() => setAskRequireKey(false)}
          testId={id('require-key-confirm')}
        >
          {plan.consequence}
        </ConfirmPanel>
      )}
      {!structural && keyRow('managerKey', 'Manager key', realm.managerKeyConfigured)}
      <div className="manage-row">
        <span className="manage-row__label">Sessions</span>
        <span className="row-actions">
          <button
            type="button"
            className={`button${confirmEnd ? ' button--danger' : ''}`}
            disabled={action.busy}
            onClick={() => {
              if (!confirmEnd) return setConfirmEnd(true);
              setConfirmEnd(false);
              void action.run(
                () => client.api.endRealmSessions(base),
                (v) => v.summary,
                reload,
              );
            }}
            data-testid={id('end-sessions')}
          >
            {confirmEnd ? 'Confirm: end sessions' : 'End sessions'}
          </button>
          <span className="muted small-inline" data-testid={id('end-sessions-hint')}>
            {confirmEnd ? (
              <>
                Every client of {name} is disconnected; those with a valid credential reconnect.{' '}
                <button type="button" className="link-button" onClick={() => setConfirmEnd(false)}>
                  Cancel
                </button>
              </>
            ) : (
              'Makes every client authenticate again (a rotated key already ends its sessions).'
            )}
          </span>
        </span>
      </div>
      {!structural && (
        <div className="manage-row">
          <span className="manage-row__label">Remove</span>
          <span className="row-actions remove-confirm">
            <span className="muted small-inline" id={id('remove-hint')}>
              Type the realm&apos;s name to confirm:
            </span>
            <input
              className="input remove-confirm__input"
              placeholder={name}
              aria-label={`Type ${name} to confirm removal`}
              aria-describedby={id('remove-hint')}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              data-testid={id('remove-confirm')}
            />
            <button
              type="button"
              className="button button--danger"
              disabled={action.busy || typed !== name}
              onClick={() =>
                void action.run(
                  () => confirmedCall(client.api, 'removeRealm', { ...base, confirmName: typed }),
                  (v) => v.summary,
                  reload,
                )
              }
              data-testid={id('remove')}
            >
              Remove realm
            </button>
          </span>
        </div>
      )}
    </div>
  );
}
