/**
 * What an Activity entry keeps of a command (activity-log.ts): per wire action the parameters it
 * may record (`AUDIT_PARAMS`: secrets only as `<set>` / `<cleared>`, id lists as a count and the
 * first ids, unknown parameters dropped), its target, and a few words on what it did from the
 * broker's reply (`auditResult`). Redaction is by schema, never by looking at values.
 */
import { SignedAction } from '../../shared/admin-signature';

/** The action name of a test publish from the console (Live tap's publisher), not a wire command. */
export const CONSOLE_PUBLISH_ACTION = 'console_publish';

/** The console's MQTT publisher (mqtt-publisher.ts): an MQTT PUBLISH, not a management command. */
export const CONSOLE_MQTT_PUBLISH_ACTION = 'console_mqtt_publish';

/** `plain`: kept (strings cut at 200 chars); `secret`: `<set>`/`<cleared>` only; `ids`: a list
 * of ids, kept as its `count` and the first `MAX_AUDIT_IDS` ids (`ids`, comma-separated). */
/** `target`: a small object of names (`move_queue`'s `to`), kept as its JSON, cut. */
type Param = 'plain' | 'secret' | 'ids' | 'target';

/** Most ids an entry lists by name (the count is always exact). */
export const MAX_AUDIT_IDS = 20;
const REALM = { realm: 'plain' } as const;
const PSK = { key: 'secret', preshared_key: 'secret', presharedKey: 'secret' } as const;
const MANAGER_KEY = { manager_key: 'secret', managerKey: 'secret' } as const;

/** Per wire action, the parameters an audit entry may keep (§8.2 catalogue, §7.3). */
export const AUDIT_PARAMS: Record<string, Record<string, Param>> = {
  reload_settings: {},
  set_global_auth: { enabled: 'plain' },
  set_persistence: { storage: 'plain', backend: 'plain', default_ttl: 'plain' },
  add_realm: {
    ...REALM,
    required: 'plain',
    require_acceptance: 'plain',
    allow_tokenless_consumers: 'plain',
    e2ee: 'plain',
    ephemeral: 'plain',
    temporary: 'plain',
    disposable: 'plain',
    ttl: 'plain',
    ...PSK,
    ...MANAGER_KEY,
  },
  rename_realm: { from: 'plain', to: 'plain' },
  // A read, but with `reveal` it hands the host every realm's keys: who did so is recorded.
  realm_keys: { reveal: 'plain' },
  remove_realm: REALM,
  set_realm_auth: { ...REALM, required: 'plain', allow_tokenless_consumers: 'plain' },
  set_realm_tokenless_consumers: { ...REALM, allow_tokenless_consumers: 'plain' },
  set_realm_manager_key: { ...REALM, ...MANAGER_KEY },
  set_realm_key: { ...REALM, ...PSK, require_key: 'plain' },
  set_realm_require_key: { ...REALM, require_key: 'plain' },
  set_realm_acceptance: { ...REALM, required: 'plain' },
  set_realm_e2ee: { ...REALM, e2ee: 'plain', policy: 'plain' },
  set_realm_lifetime: { ...REALM, ephemeral: 'plain', temporary: 'plain', ttl: 'plain' },
  add_management_token: {
    token: 'secret',
    realm_prefix: 'plain',
    ephemeral_only: 'plain',
    max_ttl: 'plain',
  },
  revoke_management_token: { token_hash: 'plain' },
  set_external_auth: {
    ...REALM,
    realm_prefix: 'plain',
    auth_url: 'plain',
    auth_secret: 'secret',
  },
  revoke_token: {
    token: 'secret',
    token_hash: 'plain',
    tokenHash: 'plain',
    ...REALM,
    client_id: 'plain',
    allow_admin: 'plain',
  },
  dlq_replay: { ...REALM, msg_id: 'plain', id: 'plain', ids: 'ids' },
  dlq_discard: { ...REALM, msg_id: 'plain', id: 'plain', ids: 'ids' },
  // The console's own test publisher (Live tap): a PRODUCE, not a management command. The
  // message itself is not kept (it may hold anything).
  [CONSOLE_PUBLISH_ACTION]: {
    ...REALM,
    event: 'plain',
    from: 'plain',
    guaranteed: 'plain',
    ttl: 'plain',
  },
  [CONSOLE_MQTT_PUBLISH_ACTION]: { ...REALM, topic: 'plain', qos: 'plain', retain: 'plain' },
  remove_consumer: { ...REALM, consumer: 'plain' },
  end_sessions: REALM,
  close_client: { ...REALM, client_id: 'plain', block_seconds: 'plain' },
  purge_queue: { ...REALM, consumer: 'plain', key: 'plain' },
  discard_queued: { ...REALM, consumer: 'plain', key: 'plain', ids: 'ids' },
  move_queue: { ...REALM, consumer: 'plain', key: 'plain', ids: 'ids', to: 'target' },
  release_in_flight: { ...REALM, consumer: 'plain', key: 'plain', ids: 'ids' },
  delete_retained: { ...REALM, topic: 'plain', filter: 'plain' },
  revoke_identity_key: { ...REALM, identity: 'plain', key_id: 'plain', unpin: 'plain' },
  [SignedAction.AUTHORIZATION_DECIDE]: {
    request_id: 'plain',
    approved: 'plain',
    role: 'plain',
    reason: 'plain',
  },
};

/** Deletions whose `NOT_FOUND` means the goal already holds (for the console's own clean-ups). */
export const IDEMPOTENT_DELETES = new Set(['remove_realm', 'revoke_token', 'remove_consumer']);

/** Reads, not decisions: not recorded (the request watcher alone sends one NEXT a second). */
export const UNAUDITED_ACTIONS = new Set([
  'get',
  'stats',
  'dlq_list',
  'list_requests',
  'client_detail',
  'list_queues',
  'peek_queue',
  'list_retained',
  'list_identities',
  'resources',
  'AUTHORIZATION_NEXT',
]);

type ParamValue = string | number | boolean | null;

/** The entry's `params`: allowed keys only, secrets as `<set>`/`<cleared>`, strings ≤ 200 chars. */
export function auditParams(
  action: string,
  body: Record<string, unknown>,
): Record<string, ParamValue> {
  const schema = AUDIT_PARAMS[action] ?? {};
  const params: Record<string, ParamValue> = {};
  for (const [key, kind] of Object.entries(schema)) {
    if (!Object.hasOwn(body, key) || body[key] === undefined) continue;
    const value = body[key];
    if (kind === 'secret') params[key] = value ? '<set>' : '<cleared>';
    else if (kind === 'target' && value !== null && typeof value === 'object') {
      params[key] = JSON.stringify(value).slice(0, 200);
    } else if (kind === 'ids') {
      const ids = Array.isArray(value) ? value.map(String) : [String(value)];
      params.count = ids.length;
      params[key] =
        ids.slice(0, MAX_AUDIT_IDS).join(', ') +
        (ids.length > MAX_AUDIT_IDS ? ` (+${ids.length - MAX_AUDIT_IDS} more)` : '');
    } else if (value === null || typeof value === 'boolean' || typeof value === 'number')
      params[key] = value;
    else if (typeof value === 'string') params[key] = value.slice(0, 200);
    else params[key] = '<object>';
  }
  return params;
}

/**
 * What a successful command did, in a few words, from its reply: how many dead letters were
 * replayed or discarded (and how many were not found), how many copies a queue purge deleted,
 * how many copies a publish stored, whose
 * authorization request was decided (client, realm, role). Null
 * when the reply says nothing more than "ok".
 */
export function auditResult(action: string, reply: unknown): string | null {
  if (typeof reply !== 'object' || reply === null) return null;
  const r = reply as Record<string, unknown>;
  const count = (value: unknown): number | null => (Array.isArray(value) ? value.length : null);
  const missing = count(r.not_found);
  const notFound = missing ? `, ${missing} not found` : '';
  if (action === 'dlq_replay') {
    const done = count(r.replayed) ?? (typeof r.new_msg_id === 'string' ? 1 : null);
    return done === null ? null : `replayed ${done}${notFound}`;
  }
  if (action === 'dlq_discard') {
    const done = count(r.discarded) ?? (typeof r.msg_id === 'string' ? 1 : null);
    return done === null ? null : `discarded ${done}${notFound}`;
  }
  if (action === 'purge_queue' && typeof r.purged === 'number') {
    const kept = typeof r.in_flight_kept === 'number' && r.in_flight_kept > 0;
    return `purged ${r.purged}${kept ? `, ${r.in_flight_kept} in flight kept` : ''}`;
  }
  if (action === 'discard_queued' && typeof r.discarded === 'number') {
    const kept = typeof r.in_flight_kept === 'number' && r.in_flight_kept > 0;
    return `discarded ${r.discarded}${kept ? `, ${r.in_flight_kept} in flight kept` : ''}${notFound}`;
  }
  if (action === 'move_queue' && typeof r.moved === 'number') {
    const kept = typeof r.in_flight_kept === 'number' && r.in_flight_kept > 0;
    return `moved ${r.moved}${kept ? `, ${r.in_flight_kept} in flight kept` : ''}${notFound}`;
  }
  if (action === 'release_in_flight' && Array.isArray(r.released)) {
    const n = (k: string) => (typeof r[k] === 'number' ? r[k] : 0);
    return `released ${r.released.length}: ${n('redelivered')} redelivered, ${n('requeued')} requeued, ${n('dead_lettered')} dead-lettered`;
  }
  if (action === 'delete_retained' && typeof r.deleted === 'number') {
    return `deleted ${r.deleted} retained`;
  }
  if (action === 'revoke_identity_key' && Array.isArray(r.removed_keys)) {
    const n = r.removed_keys.length;
    return `revoked ${n} key${n === 1 ? '' : 's'}${r.unpinned === true ? ', unpinned' : ''}`;
  }
  if (action === SignedAction.AUTHORIZATION_DECIDE) {
    // The reply is the decided request: say whose it was, since the body holds only its id.
    const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
    const client = text(r.client_name) ?? text(r.client_id);
    const realm = text(r.realm);
    if (!client && !realm) return null;
    const id = text(r.client_id);
    const who = client && id && id !== client ? `${client} (${id})` : (client ?? 'a client');
    const role = text(r.role);
    return `${who}${realm ? ` in ${realm}` : ''}${role ? ` as ${role}` : ''}`.slice(0, 300);
  }
  if (action === CONSOLE_PUBLISH_ACTION && typeof r.storedCopies === 'number') {
    return r.storedCopies === 0
      ? 'delivered live, no durable copy'
      : `${r.storedCopies} durable ${r.storedCopies === 1 ? 'copy' : 'copies'} stored`;
  }
  return null;
}

export function auditTarget(body: Record<string, unknown>): string | null {
  for (const key of ['realm', 'from', 'realm_prefix', 'request_id']) {
    if (typeof body[key] === 'string' && body[key]) return body[key];
  }
  return null;
}
