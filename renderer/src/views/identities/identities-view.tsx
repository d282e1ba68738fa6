/**
 * E2EE identities (issue 28, console): the tyo-mq 1.1 identities of one realm of the selected
 * broker — published keys (fingerprints, never keys), the credential each is pinned to, the
 * prekey stock with a warning below `PREKEY_LOW_WATER` one-time prekeys, push registrations —
 * read with `listIdentities` every 3 s for the realm picked, in a virtualised list
 * (identity-list.tsx). The search box asks the broker (`contains`, debounced), so one identity
 * among many thousands is found without paging; past 1,000, "Load more" adds the next page. Selecting one opens its detail with Revoke (identity-detail.tsx). A
 * broker without `list_identities` gets one line saying so instead of a list.
 */
import { useCallback, useMemo, useState } from 'react';
import type { Result } from '../../../../shared/console-api';
import {
  PREKEY_LOW_WATER,
  type IdentityList as IdentityListResult,
} from '../../../../shared/console-api-identities';
import type { ConsoleClient } from '../../api/console-client';
import { ConnectionProblem } from '../../components/connection-problem';
import { ErrorBanner } from '../../components/error-banner';
import { Page } from '../../components/page';
import { formatCountOf } from '../../format';
import { useConnectionId } from '../../hooks/use-connection-id';
import { useConsoleAction } from '../../hooks/use-console-action';
import { useDebounced } from '../../hooks/use-debounced';
import { usePolled } from '../../hooks/use-polled';
import { useRealmNames } from '../retained/retained-view';
import { IdentityDetail } from './identity-detail';
import { IdentityList, prekeysLow } from './identity-list';
import '../../styles/operations.css';
import '../../styles/identities.css';

/** Refresh period of the list, ms. */
const REFRESH_MS = 3_000;
/** Identities fetched a page (the broker allows up to 1,000). */
const PAGE = 1_000;
/** How long the search box waits after the last key before it asks the broker, ms. */
const SEARCH_DEBOUNCE_MS = 300;

/**
 * The first `pages` pages of `realm`'s identities (names holding `contains` when set), read one
 * after the other along `nextCursor`; the result's `nextCursor` is the last page's.
 */
async function readPages(
  client: ConsoleClient,
  input: { connectionId: string; realm: string; contains: string },
  pages: number,
): Promise<Result<IdentityListResult>> {
  const base = {
    connectionId: input.connectionId,
    realm: input.realm,
    limit: PAGE,
    ...(input.contains ? { contains: input.contains } : {}),
  };
  let result = await client.api.listIdentities(base);
  if (!result.ok) return result;
  const identities = [...result.value.identities];
  for (let page = 1; page < pages && result.value.nextCursor; page += 1) {
    const next = await client.api.listIdentities({ ...base, cursor: result.value.nextCursor });
    if (!next.ok) return next;
    result = next;
    identities.push(...next.value.identities);
  }
  return { ok: true, value: { ...result.value, identities } };
}

export function IdentitiesView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const realms = useRealmNames(client, connectionId);
  const [realm, setRealm] = useState('default');
  const [search, setSearch] = useState('');
  const contains = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  // Pages to read, per realm and search: another realm or search starts at one again.
  const [paging, setPaging] = useState({ key: '', pages: 1 });
  const pagingKey = `${connectionId}\u0000${realm}\u0000${contains}`;
  const pages = paging.key === pagingKey ? paging.pages : 1;
  const [focused, setFocused] = useState<string | null>(null);
  const revoke = useConsoleAction();

  const call = useCallback(
    () => readPages(client, { connectionId, realm, contains }, pages),
    [client, connectionId, realm, contains, pages],
  );
  const { value: list, error, reload } = usePolled(call, REFRESH_MS);
  const all = useMemo(() => (list?.state === 'ok' ? list.identities : []), [list]);
  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return needle ? all.filter((r) => r.identity.toLowerCase().includes(needle)) : all;
  }, [all, search]);
  const chosen = all.find((r) => r.identity === focused) ?? null;
  const low = all.filter(prekeysLow).length;
  const onFocus = useCallback((identity: string) => setFocused(identity), []);

  const intro =
    list?.state === 'ok'
      ? `${formatCountOf(all.length, 'identity', 'identities')}${list.nextCursor ? ' (more on the broker)' : ''}${contains ? ` matching “${contains}”` : ''} in ${list.realm}${low > 0 ? ` · ${low} low on prekeys` : ''} · updated ${new Date(list.fetchedAt).toLocaleTimeString('en-GB')}`
      : 'The end-to-end encryption identities of a realm: published keys, prekeys and push registrations.';

  return (
    <Page testId="identities-view" title="E2EE identities" intro={intro}>
      <ConnectionProblem
        error={error}
        connectionId={connectionId}
        what="its E2EE identities"
        testId="identities-problem"
      />
      <div className="ops-toolbar identities-toolbar" role="search">
        <label className="field">
          Realm
          <select
            value={realm}
            onChange={(e) => {
              setRealm(e.target.value);
              setFocused(null);
              revoke.clear();
            }}
            data-testid="identities-realm"
          >
            {(realms.includes(realm) ? realms : [realm, ...realms]).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="field field--grow">
          Identity
          <input
            type="search"
            value={search}
            placeholder="any"
            onChange={(e) => setSearch(e.target.value)}
            data-testid="identities-search"
          />
        </label>
      </div>

      <ErrorBanner title="Revoke:" message={revoke.error?.message} testId="identities-error" />
      {revoke.message && (
        <p className="action-line" role="status" data-testid="identities-message">
          {revoke.message}
        </p>
      )}
      {low > 0 && (
        <p className="identities-warning" role="status" data-testid="identities-low-water">
          {formatCountOf(low, 'identity', 'identities')} {low === 1 ? 'has' : 'have'} fewer than{' '}
          {PREKEY_LOW_WATER} one-time prekeys left.
        </p>
      )}
      {list?.state === 'unsupported' && (
        <p className="ops-empty" data-testid="identities-unsupported">
          This broker does not offer E2EE identity listing (<code>list_identities</code>).
        </p>
      )}
      {list?.state === 'ok' && rows.length === 0 && (
        <p className="ops-empty" data-testid="identities-empty">
          {all.length === 0
            ? `No identity in ${list.realm} has published a key, prekeys or a push registration.`
            : 'No identity matches.'}
        </p>
      )}
      {rows.length > 0 && (
        <div className="ops-dlq identities-layout">
          <IdentityList rows={rows} focused={focused} onFocus={onFocus} />
          {chosen && list && (
            <IdentityDetail
              key={`${list.realm}\u0000${chosen.identity}`}
              client={client}
              connectionId={connectionId}
              realm={list.realm}
              row={chosen}
              onClose={() => setFocused(null)}
              reload={reload}
              revoke={revoke}
            />
          )}
        </div>
      )}
      {list?.state === 'ok' && list.nextCursor && (
        <button
          type="button"
          className="button"
          onClick={() => setPaging({ key: pagingKey, pages: pages + 1 })}
          data-testid="identities-more"
        >
          Load {PAGE.toLocaleString('en-GB')} more
        </button>
      )}
    </Page>
  );
}
