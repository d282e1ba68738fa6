/**
 * The prekey directory of a clustered node, kept in Redis (`spec/protocol-extensions.md` §3 with
 * Note 3-E's Switchboard decision, and §10's matrix): a bundle published on one node is taken on
 * any node, and each one-time prekey is handed out **once cluster-wide** (`LPOP` is atomic).
 *
 * Redis keys, under the cluster prefix `P` (`b64u` = base64url of the UTF-8 text, core §16.3, so
 * no part contains `:`):
 * - `P:prekeys:<b64u realm>:<b64u identity>` — string, JSON `{bundle, updated_at}` (the static
 *   part, replaced by every publish; `updated_at` ISO-8601, never served);
 * - `P:prekeys:<b64u realm>:<b64u identity>:otp` — list of JSON `{id, key}`, oldest first, at
 *   most 100 (`ExtensionLimit.PREKEY_POOL_MAX`);
 * - `P:prekeys:<b64u realm>` — set of the realm's `<b64u identity>` (Switchboard: lets
 *   `remove_realm` / `rename_realm` find the realm's bundles without scanning the keyspace).
 *
 * Publish is one Lua script: the static part is replaced, a pooled id is replaced in place
 * (Note 3-D), other entries are appended only while the list is shorter than 100 ("first 100
 * win"). A take is `LPOP` in a Lua script that also reads the static part and the length left.
 *
 * Redis unreachable: every call rejects (the links fail fast, no offline queue); the handlers
 * answer 503 and never serve a key from anywhere else, so no key can be handed out twice. A
 * take whose reply was lost after Redis ran it burns that key (it is never served again).
 * Nothing expires: bundles outlive node restarts while Redis keeps its data (Note 3-F).
 */
import { z } from 'zod';
import {
  ExtensionLimit,
  type OneTimePrekey,
  type PrekeyBundle,
} from '../../shared/protocol-extensions';
import { RealmIndexSteps } from '../cluster/realm-index-steps';
import type { RedisLinks } from '../cluster/redis-links';
import type { Logger } from '../logging/logger';
import { b64u, unb64u } from '../storage/redis-keys';
import { OneTimePrekeySchema, PrekeyBundleSchema } from './prekey-bundle';

/**
 * KEYS: static, otp, realm index. ARGV: static JSON, cap, identity b64u, then id, entry JSON
 * pairs. Returns the pool length after the update.
 */
const PUBLISH_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[3])
local max = tonumber(ARGV[2])
local list = redis.call('LRANGE', KEYS[2], 0, -1)
local at = {}
for i, raw in ipairs(list) do
  local ok, e = pcall(cjson.decode, raw)
  if ok and type(e) == 'table' and type(e.id) == 'number' then at[tostring(e.id)] = i - 1 end
end
local n = #list
for j = 4, #ARGV, 2 do
  local id, entry = ARGV[j], ARGV[j + 1]
  local i = at[id]
  if i ~= nil then
    redis.call('LSET', KEYS[2], i, entry)
  elseif n < max then
    redis.call('RPUSH', KEYS[2], entry)
    at[id] = n
    n = n + 1
  end
end
return n
`;

/**
 * KEYS: static, otp. ARGV[1]: '1' to pop the oldest one-time key, '0' to only look.
 * Returns false (no bundle) or {static JSON, popped entry or false, length left}.
 */
const TAKE_SCRIPT = `
local static = redis.call('GET', KEYS[1])
if not static then return false end
local popped = false
if ARGV[1] == '1' then popped = redis.call('LPOP', KEYS[2]) end
return {static, popped, redis.call('LLEN', KEYS[2])}
`;

const StaticSchema = z.object({ bundle: PrekeyBundleSchema, updated_at: z.string() });

/** What a take (or a look) found: the static bundle, the key taken (null: none), the pool left. */
export interface RedisTake {
  bundle: PrekeyBundle;
  taken: OneTimePrekey | null;
  remaining: number;
  /** ISO-8601 time of the bundle's last publish. */
  updatedAt: string;
}

/** Thrown when Redis cannot be reached (or answers an error): the handlers reply 503. */
export class PrekeyDirectoryUnavailable extends Error {}

function parseJson<T>(schema: z.ZodType<T>, text: unknown): T | null {
  if (typeof text !== 'string') return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text) as unknown);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export class PrekeyRedisDirectory {
  private readonly base: string;
  /** `remove_realm` / `rename_realm` over the realm index (`cluster/realm-index-steps.ts`). */
  private readonly realms: RealmIndexSteps;

  constructor(
    private readonly links: RedisLinks,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.base = `${prefix}:prekeys`;
    this.realms = new RealmIndexSteps(links, this.base, ['', ':otp'], logger, 'prekey');
  }

  private keys(realm: string, identity: string) {
    const realmIndex = `${this.base}:${b64u(realm)}`;
    const bundle = `${realmIndex}:${b64u(identity)}`;
    return { realmIndex, bundle, otp: `${bundle}:otp` };
  }

  /** Runs one script; any failure (link down, Redis error) becomes PrekeyDirectoryUnavailable. */
  private async run(script: string, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.links.command.eval(script, keys.length, ...keys, ...args);
    } catch (err) {
      throw new PrekeyDirectoryUnavailable((err as Error).message);
    }
  }

  /**
   * §3.1 with Note 3-D, atomically on Redis: replaces the static part, merges `added` by id,
   * appends while fewer than 100 are pooled. Resolves with the pool size after the update.
   * @throws PrekeyDirectoryUnavailable (nothing or everything was stored: one script)
   */
  async publish(
    realm: string,
    identity: string,
    bundle: PrekeyBundle,
    updatedAt: string,
    added: readonly OneTimePrekey[],
  ): Promise<number> {
    const k = this.keys(realm, identity);
    const pairs = added.flatMap((e) => [String(e.id), JSON.stringify({ id: e.id, key: e.key })]);
    const n = await this.run(
      PUBLISH_SCRIPT,
      [k.bundle, k.otp, k.realmIndex],
      [
        JSON.stringify({ bundle, updated_at: updatedAt }),
        String(ExtensionLimit.PREKEY_POOL_MAX),
        b64u(identity),
        ...pairs,
      ],
    );
    return Number(n);
  }

  /**
   * §3.2: the bundle of (realm, identity) with, when `pop`, the oldest one-time key taken out
   * of the shared pool (at most once cluster-wide); null when there is no bundle. A stored
   * value that does not parse is logged: a bad static part counts as no bundle, a bad pool
   * entry as no key (that entry is gone).
   * @throws PrekeyDirectoryUnavailable
   */
  async take(realm: string, identity: string, pop: boolean): Promise<RedisTake | null> {
    const k = this.keys(realm, identity);
    const raw = await this.run(TAKE_SCRIPT, [k.bundle, k.otp], [pop ? '1' : '0']);
    if (!Array.isArray(raw)) return null;
    const [staticText, popped, left] = raw as [unknown, unknown, unknown];
    const stored = parseJson(StaticSchema, staticText);
    if (!stored) {
      this.logger.warn({ realm }, 'cluster prekey bundle unreadable; not served');
      return null;
    }
    let taken: OneTimePrekey | null = null;
    if (typeof popped === 'string') {
      taken = parseJson(OneTimePrekeySchema, popped);
      if (!taken) this.logger.warn({ realm }, 'cluster one-time prekey unreadable; dropped');
    }
    return { bundle: stored.bundle, taken, remaining: Number(left), updatedAt: stored.updated_at };
  }

  /**
   * The identities of `realm` holding a bundle in Redis, from the realm index (any order;
   * `list_identities` on a clustered node).
   * @throws PrekeyDirectoryUnavailable
   */
  async identities(realm: string): Promise<string[]> {
    let members: string[];
    try {
      members = await this.links.command.smembers(this.keys(realm, '').realmIndex);
    } catch (err) {
      throw new PrekeyDirectoryUnavailable((err as Error).message);
    }
    return members.map(unb64u);
  }

  /** `remove_realm`: deletes the realm's bundles and pools (any node; idempotent). */
  removeRealm(realm: string): void {
    this.realms.removeRealm(realm);
  }

  /** `rename_realm`: moves the realm's bundles when `to` holds none, else drops them. */
  renameRealm(from: string, to: string): void {
    this.realms.renameRealm(from, to);
  }
}

/** The Redis directory of a clustered node; null when not clustered. */
export function prekeyRedisDirectory(
  cluster: { links: RedisLinks | null; settings: { prefix: string } | null },
  logger: Logger,
): PrekeyRedisDirectory | null {
  if (!cluster.links || !cluster.settings) return null;
  return new PrekeyRedisDirectory(cluster.links, cluster.settings.prefix, logger);
}
