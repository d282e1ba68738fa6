/**
 * Activity entries in words: the wire action names (`set_realm_lifetime`, `AUTHORIZATION_DECIDE`,
 * …) as what the operator did ("Set realm lifetime", "Approve request"). The raw name stays
 * available (the entry's tooltip, the filter's value) for anyone matching logs.
 */
import type { ActivityEntry } from '../../../../shared/console-api-activity';

/** One label per action, for the command filter (no parameters known). */
const LABELS: Record<string, string> = {
  reload_settings: 'Reload settings',
  set_global_auth: 'Switch broker auth',
  set_persistence: 'Change persistence',
  add_realm: 'Create realm',
  rename_realm: 'Rename realm',
  remove_realm: 'Remove realm',
  set_realm_auth: 'Set realm auth',
  set_realm_tokenless_consumers: 'Set token-less consumers',
  set_realm_manager_key: 'Set manager key',
  set_realm_key: 'Set pre-shared key',
  set_realm_require_key: 'Set key requirement',
  set_realm_acceptance: 'Set producer acceptance',
  set_realm_e2ee: 'Set end-to-end encryption',
  set_realm_lifetime: 'Set realm lifetime',
  add_management_token: 'Create management token',
  revoke_management_token: 'Revoke management token',
  set_external_auth: 'Set external validator',
  revoke_token: 'Revoke token',
  dlq_replay: 'Replay dead letters',
  dlq_discard: 'Discard dead letters',
  purge_queue: 'Purge queue',
  discard_queued: 'Discard queued messages',
  move_queue: 'Move queued messages',
  release_in_flight: 'Release in-flight messages',
  close_client: 'Force close client',
  realm_keys: 'Read realm keys (export)',
  end_sessions: 'End realm sessions',
  revoke_identity_key: 'Revoke identity key',
  remove_consumer: 'Remove consumer',
  delete_retained: 'Delete retained messages',
  AUTHORIZATION_DECIDE: 'Decide request',
  console_publish: 'Publish test message',
  console_mqtt_publish: 'Publish MQTT message',
};

/** The action's label without its parameters; an unknown action keeps its wire name. */
export function actionLabel(action: string): string {
  return LABELS[action] ?? action;
}

const onOff = (value: unknown, on: string, off: string): string | null =>
  value === true ? on : value === false ? off : null;

/** The entry's label with what its parameters change ("Approve request", "Make realm permanent"). */
export function entryLabel(entry: Pick<ActivityEntry, 'action' | 'params'>): string {
  const p = entry.params;
  switch (entry.action) {
    case 'AUTHORIZATION_DECIDE':
      return onOff(p.approved, 'Approve request', 'Reject request') ?? actionLabel(entry.action);
    case 'set_global_auth':
      return (
        onOff(p.enabled, 'Turn broker auth on', 'Turn broker auth off') ?? actionLabel(entry.action)
      );
    case 'set_realm_auth':
      return onOff(p.required, 'Require auth', 'Stop requiring auth') ?? actionLabel(entry.action);
    case 'set_realm_acceptance':
      return (
        onOff(p.required, 'Require producer acceptance', 'Stop requiring producer acceptance') ??
        actionLabel(entry.action)
      );
    case 'set_realm_tokenless_consumers':
      return (
        onOff(
          p.allow_tokenless_consumers,
          'Allow token-less consumers',
          'Forbid token-less consumers',
        ) ?? actionLabel(entry.action)
      );
    case 'set_realm_require_key':
      return (
        onOff(p.require_key, 'Require the pre-shared key', 'Stop requiring the pre-shared key') ??
        actionLabel(entry.action)
      );
    case 'set_realm_key':
      return (
        secretChange(p.key ?? p.preshared_key ?? p.presharedKey, 'pre-shared key') ??
        actionLabel(entry.action)
      );
    case 'set_realm_manager_key':
      return (
        secretChange(p.manager_key ?? p.managerKey, 'manager key') ?? actionLabel(entry.action)
      );
    case 'set_realm_lifetime':
      return p.ephemeral === false ? 'Make realm permanent' : actionLabel(entry.action);
    default:
      return actionLabel(entry.action);
  }
}

function secretChange(value: unknown, what: string): string | null {
  if (value === '<set>') return `Set ${what}`;
  if (value === '<cleared>') return `Clear ${what}`;
  return null;
}

/** Parameter names in words; the ones already in the label or the target are left out. */
const PARAM_LABELS: Record<string, string> = {
  ttl: 'TTL',
  count: 'count',
  ids: 'ids',
  role: 'role',
  reason: 'reason',
  event: 'event',
  from: 'from',
  guaranteed: 'guaranteed',
  require_key: 'require key',
  realm_prefix: 'prefix',
  auth_url: 'URL',
  token_hash: 'token',
  tokenHash: 'token',
  client_id: 'client',
  consumer: 'consumer',
  to: 'new name',
  ephemeral: 'ephemeral',
  required: 'required',
  e2ee: 'e2ee',
  ephemeral_only: 'ephemeral only',
  max_ttl: 'max TTL',
  storage: 'storage',
  default_ttl: 'default TTL',
  enabled: 'enabled',
  block_seconds: 'blocked for (s)',
};
const SHOWN_ELSEWHERE = new Set(['realm', 'from_realm', 'request_id', 'approved', 'from']);

/** The parameters worth reading, as `name: value` pairs (`count: 3 · ids: a, b, c`). */
export function entryDetails(entry: Pick<ActivityEntry, 'action' | 'params'>): string {
  return Object.entries(entry.params)
    .filter(
      ([key]) =>
        !SHOWN_ELSEWHERE.has(key) || (key === 'from' && entry.action === 'console_publish'),
    )
    .filter(([key]) => !(entry.action === 'rename_realm' && key === 'from'))
    .map(([key, value]) => `${paramLabel(entry.action, key)}: ${paramText(value)}`)
    .join(' · ');
}

/** `to` is a new name for `rename_realm` only; for a move it is the target. */
function paramLabel(action: string, key: string): string {
  if (key === 'to' && action !== 'rename_realm') return 'to';
  return PARAM_LABELS[key] ?? key;
}

/**
 * Objects as `k v` pairs (`consumer healthy-worker`), not JSON (the log keeps a structured
 * parameter as its JSON text); arrays joined.
 */
function paramText(value: unknown): string {
  if (typeof value === 'string' && value.startsWith('{')) {
    try {
      return paramText(JSON.parse(value) as unknown);
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map((v) => paramText(v)).join(', ');
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value)
      .map(([k, v]) => `${k} ${paramText(v)}`)
      .join(', ');
  }
  return String(value);
}
