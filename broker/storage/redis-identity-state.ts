/**
 * The extensions' per-identity state in the Redis message store (`identity-state.ts`'s facet;
 * `spec/protocol-extensions.md` §10, whose matrix keeps the sealed inbox in the durable store
 * "with SQLite or Redis"): the E2EE keys, pins, prekeys, push endpoints and queued sealed blobs
 * survive a broker restart with `storage: "redis"` as they do with SQLite.
 *
 * Keys, with the store's prefix `P` (`b64u` = base64url, so no part contains `:`):
 * - `P:idstate:<b64u realm>` — hash, field `<b64u kind>:<b64u identity>`, value the family's
 *   own text (JSON);
 * - `P:idstate-realms` — set of the b64u realms that may hold rows (what `load` reads).
 *
 * A put is `HSET` + `SADD` in one `MULTI`; `remove_realm` deletes the realm's hash and
 * `rename_realm` moves it when the target holds none, else drops it (the SQLite store's rule).
 * Each node keeps its own copy in memory and writes its own changes: with one Redis store
 * shared by a cluster, the state is not shared between running nodes (the reference's §10 row
 * for the sealed inbox says "shared only through a shared Redis store"; Switchboard shares the
 * key directory, prekeys and push registry through the cluster instead, docs/cluster.md).
 */
import type { Redis } from 'ioredis';
import { b64u, unb64u } from './redis-keys';
import type { IdentityStateRow, IdentityStateStore, IdentityStateWrite } from './identity-state';

/** KEYS: from hash, to hash, realms set. ARGV: from b64u, to b64u. Moves or drops. */
const RENAME_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SREM', KEYS[3], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('SADD', KEYS[3], ARGV[2])
return 1
`;

/** A `MULTI` whose command failed rejects (ioredis resolves `exec` with per-command errors). */
async function exec(multi: ReturnType<Redis['multi']>): Promise<void> {
  const results = await multi.exec();
  const failed = results?.find(([err]) => err !== null)?.[0];
  if (failed) throw failed;
}

export class RedisIdentityState implements IdentityStateStore {
  private readonly realms: string;

  /** `call` runs one command the way the store runs its own (fail fast, errors named). */
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    private readonly call: <T>(command: () => Promise<T>) => Promise<T>,
  ) {
    this.realms = `${prefix}:idstate-realms`;
  }

  private hash(realm: string): string {
    return `${this.prefix}:idstate:${b64u(realm)}`;
  }

  /** Every row; rows that do not decode are skipped (their family validates the values). */
  async load(): Promise<IdentityStateRow[]> {
    const parts = await this.call(() => this.client.smembers(this.realms));
    // One read per realm, sent together (the start-up waits for all of them).
    const hashes = await Promise.all(
      parts.map((part) => this.call(() => this.client.hgetall(`${this.prefix}:idstate:${part}`))),
    );
    const rows: IdentityStateRow[] = [];
    parts.forEach((part, i) => {
      const realm = unb64u(part);
      for (const [field, value] of Object.entries(hashes[i]!)) {
        const [kind, identity] = field.split(':');
        if (kind === undefined || identity === undefined) continue;
        rows.push({ realm, identity: unb64u(identity), kind: unb64u(kind), value });
      }
    });
    return rows;
  }

  async write(change: IdentityStateWrite): Promise<void> {
    const field = `${b64u(change.kind)}:${b64u(change.identity)}`;
    const hash = this.hash(change.realm);
    if (change.op === 'delete') {
      await this.call(() => this.client.hdel(hash, field));
      return;
    }
    await this.call(() =>
      exec(
        this.client.multi().hset(hash, field, change.value).sadd(this.realms, b64u(change.realm)),
      ),
    );
  }

  /** `remove_realm`: the realm's rows (with the store's own purge). */
  async purgeRealm(realm: string): Promise<void> {
    await this.call(() =>
      exec(this.client.multi().del(this.hash(realm)).srem(this.realms, b64u(realm))),
    );
  }

  /** `rename_realm`: moves `from`'s rows when `to` holds none, else drops them. */
  async renameRealm(from: string, to: string): Promise<void> {
    await this.call(() =>
      this.client.eval(
        RENAME_SCRIPT,
        3,
        this.hash(from),
        this.hash(to),
        this.realms,
        b64u(from),
        b64u(to),
      ),
    );
  }
}
