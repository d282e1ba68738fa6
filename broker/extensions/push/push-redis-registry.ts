/**
 * The push registry of a clustered node, kept in Redis (`spec/protocol-extensions.md` §6.4
 * with Note 6-G's recommendation, Switchboard decision): a device registered on one node is
 * woken by whichever node stores a message for it, and each wake is sent by one node only.
 *
 * Redis keys, under the cluster prefix `P` (`b64u` = base64url of the UTF-8 text, so no part
 * contains `:`):
 * - `P:push:<b64u realm>:<b64u identity>` — hash, field `<transport>\n<sha256 hex(token)>`,
 *   value the JSON endpoint (§6.4's fields, plus `order`: when it was first registered, epoch
 *   ms, which keeps §6.4's registration order across refreshes);
 * - `P:push:<b64u realm>` — set of the realm's `<b64u identity>` (lets `remove_realm` /
 *   `rename_realm` and `list_identities` find them without scanning the keyspace);
 * - `P:pushwake:<b64u realm>:<b64u identity>` — `SET … 1 NX PX <window>`: the §6.6 coalescing
 *   window, claimed by the first node, so only one node sends each wake.
 *
 * Every change is one Lua script (atomic across nodes): a re-registration refreshes `added_at`,
 * `app_id` and `env` in place; past the cap (10) the endpoint registered first is evicted.
 * Redis unreachable: every call rejects; registration answers 500 and a wake is not sent.
 * Entries do not expire (as the per-node registry's do not).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ExtensionLimit } from '../../../shared/protocol-extensions';
import { RealmIndexSteps } from '../../cluster/realm-index-steps';
import type { RedisLinks } from '../../cluster/redis-links';
import type { Logger } from '../../logging/logger';
import { b64u, unb64u } from '../../storage/redis-keys';
import type { PushDirectory } from './push-registry';
import type { PushEndpoint } from './push-types';

/**
 * KEYS: hash, realm index. ARGV: field, endpoint JSON (new), cap, identity b64u. Keeps
 * `order` and `last_ok` of an existing entry; evicts the lowest `order` past the cap.
 * Returns the count after the change.
 */
const REGISTER_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
local entry = cjson.decode(ARGV[2])
if old then
  local ok, prev = pcall(cjson.decode, old)
  if ok and type(prev) == 'table' then
    entry.order = prev.order or entry.order
    entry.last_ok = prev.last_ok
  end
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(entry))
redis.call('SADD', KEYS[2], ARGV[4])
local cap = tonumber(ARGV[3])
while redis.call('HLEN', KEYS[1]) > cap do
  local all = redis.call('HGETALL', KEYS[1])
  local first, firstOrder = nil, nil
  for i = 1, #all, 2 do
    local ok, e = pcall(cjson.decode, all[i + 1])
    local o = (ok and type(e) == 'table' and tonumber(e.order)) or 0
    if firstOrder == nil or o < firstOrder or (o == firstOrder and all[i] < first) then
      first, firstOrder = all[i], o
    end
  end
  redis.call('HDEL', KEYS[1], first)
end
return redis.call('HLEN', KEYS[1])
`;

/** KEYS: hash, realm index. ARGV: field, identity b64u. Returns how many were removed. */
const REMOVE_SCRIPT = `
local n = redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[2]) end
return n
`;

/** KEYS: hash. ARGV: field, last_ok (epoch ms). Sets `last_ok` if the entry is still there. */
const MARK_OK_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return 0 end
local ok, e = pcall(cjson.decode, old)
if not ok or type(e) ~= 'table' then return 0 end
e.last_ok = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
return 1
`;

const StoredEndpoint = z.object({
  transport: z.string().max(64),
  token: z.string().min(1).max(ExtensionLimit.PUSH_MAX_TOKEN_LENGTH),
  app_id: z.string().max(ExtensionLimit.PUSH_MAX_APP_ID_LENGTH).nullable(),
  env: z.enum(['production', 'sandbox']).nullable(),
  added_at: z.number(),
  last_ok: z.number().nullable().catch(null),
  order: z.number().catch(0),
});

const fieldOf = (transport: string, token: string) =>
  `${transport}\n${createHash('sha256').update(token, 'utf8').digest('hex')}`;

export class PushRedisRegistry implements PushDirectory {
  /** `remove_realm` / `rename_realm` over the realm index (`cluster/realm-index-steps.ts`). */
  private readonly realms: RealmIndexSteps;
  private readonly base: string;
  private readonly wakeBase: string;

  constructor(
    private readonly links: RedisLinks,
    prefix: string,
    private readonly logger: Logger,
    private readonly cap: number = ExtensionLimit.PUSH_MAX_TOKENS_PER_IDENTITY,
    private readonly windowMs: number = ExtensionLimit.PUSH_COALESCE_WINDOW_MS,
  ) {
    this.base = `${prefix}:push`;
    this.wakeBase = `${prefix}:pushwake`;
    this.realms = new RealmIndexSteps(links, this.base, [''], logger, 'push');
  }

  private keys(realm: string, identity: string) {
    const realmIndex = `${this.base}:${b64u(realm)}`;
    return {
      realmIndex,
      hash: `${realmIndex}:${b64u(identity)}`,
      wake: `${this.wakeBase}:${b64u(realm)}:${b64u(identity)}`,
    };
  }

  private eval(script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.links.command.eval(script, keys.length, ...keys, ...args);
  }

  /** §6.4's list, in registration order; a stored value that does not parse is skipped. */
  async endpoints(realm: string, identity: string): Promise<readonly PushEndpoint[]> {
    const all = await this.links.command.hgetall(this.keys(realm, identity).hash);
    const parsed: Array<z.infer<typeof StoredEndpoint>> = [];
    for (const value of Object.values(all)) {
      let json: unknown;
      try {
        json = JSON.parse(value);
      } catch {
        json = null;
      }
      const entry = StoredEndpoint.safeParse(json);
      if (entry.success) parsed.push(entry.data);
      else this.logger.warn({ realm }, 'cluster push endpoint unreadable; skipped');
    }
    parsed.sort((a, b) => a.order - b.order || (a.token < b.token ? -1 : 1));
    return parsed.map(({ order: _order, ...endpoint }) => endpoint);
  }

  async identities(realm: string): Promise<string[]> {
    const members = await this.links.command.smembers(this.keys(realm, '').realmIndex);
    return members.map(unb64u);
  }

  /** The start of the coalescing window in force, from its time to live; else undefined. */
  async lastWakeAt(realm: string, identity: string, now = Date.now()): Promise<number | undefined> {
    const ttl = await this.links.command.pttl(this.keys(realm, identity).wake);
    return ttl > 0 ? now - (this.windowMs - ttl) : undefined;
  }

  async register(
    realm: string,
    identity: string,
    entry: Omit<PushEndpoint, 'added_at' | 'last_ok'>,
    now = Date.now(),
  ): Promise<number> {
    const k = this.keys(realm, identity);
    const json = JSON.stringify({ ...entry, added_at: now, last_ok: null, order: now });
    const n = await this.eval(
      REGISTER_SCRIPT,
      [k.hash, k.realmIndex],
      [fieldOf(entry.transport, entry.token), json, String(this.cap), b64u(identity)],
    );
    return Number(n);
  }

  async remove(realm: string, identity: string, transport: string, token: string): Promise<number> {
    const k = this.keys(realm, identity);
    const n = await this.eval(
      REMOVE_SCRIPT,
      [k.hash, k.realmIndex],
      [fieldOf(transport, token), b64u(identity)],
    );
    return Number(n);
  }

  async markOk(
    realm: string,
    identity: string,
    transport: string,
    token: string,
    now = Date.now(),
  ): Promise<void> {
    const k = this.keys(realm, identity);
    await this.eval(MARK_OK_SCRIPT, [k.hash], [fieldOf(transport, token), String(now)]);
  }

  /** §6.6 step 3 cluster-wide: the first node to claim the window sends the wake. */
  async claimWindow(realm: string, identity: string): Promise<boolean> {
    const reply = await this.links.command.set(
      this.keys(realm, identity).wake,
      '1',
      'PX',
      this.windowMs,
      'NX',
    );
    return reply === 'OK';
  }

  /** `remove_realm`: deletes the realm's registrations (any node; idempotent). */
  removeRealm(realm: string): void {
    this.realms.removeRealm(realm);
  }

  /** `rename_realm`: moves the realm's registrations when `to` holds none, else drops them. */
  renameRealm(from: string, to: string): void {
    this.realms.renameRealm(from, to);
  }
}

/** The Redis registry of a clustered node; null when not clustered. */
export function pushRedisRegistry(
  cluster: { links: RedisLinks | null; settings: { prefix: string } | null },
  logger: Logger,
): PushRedisRegistry | null {
  if (!cluster.links || !cluster.settings) return null;
  return new PushRedisRegistry(cluster.links, cluster.settings.prefix, logger);
}
