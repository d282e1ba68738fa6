/**
 * `remove_realm` and `rename_realm` for a per-identity key family kept in the cluster's Redis
 * (the prekey directory, Note 3-E; the push registry, Note 6-G). Such a family keeps, under its
 * base `B`, the keys `B:<b64u realm>:<b64u identity><suffix>` for each of its suffixes, and the
 * set `B:<b64u realm>` of the realm's `<b64u identity>`, so a realm command finds them without
 * scanning the keyspace.
 *
 * Each step is one Lua script, idempotent (a second run finds the index gone), so every node may
 * run it: a rename moves the realm's keys when the new name holds none and drops them otherwise
 * (all or nothing, as the node-local state does); a removal deletes them. Steps run in order on
 * this node; a failure (Redis unreachable) is logged and not retried.
 */
import type { Logger } from '../logging/logger';
import { b64u } from '../storage/redis-keys';
import type { RedisLinks } from './redis-links';

/**
 * KEYS: old realm index, new realm index or the old one again (remove). ARGV: old key base
 * (`B:<b64u from>:`), new base or '' (remove), then the family's key suffixes. Returns how many
 * identities it went through.
 */
const REALM_SCRIPT = `
local members = redis.call('SMEMBERS', KEYS[1])
local move = ARGV[2] ~= '' and redis.call('EXISTS', KEYS[2]) == 0
for _, m in ipairs(members) do
  for i = 3, #ARGV do
    local k = ARGV[1] .. m .. ARGV[i]
    if move then
      if redis.call('EXISTS', k) == 1 then redis.call('RENAME', k, ARGV[2] .. m .. ARGV[i]) end
    else
      redis.call('DEL', k)
    end
  end
  if move then redis.call('SADD', KEYS[2], m) end
end
redis.call('DEL', KEYS[1])
return #members
`;

export class RealmIndexSteps {
  private chain: Promise<unknown> = Promise.resolve();

  /**
   * @param base the family's key base `B` (e.g. `<prefix>:prekeys`).
   * @param suffixes what follows `<b64u identity>` in each of an identity's keys (`''` for the
   *   key itself, e.g. `':otp'` for a second one).
   * @param what the family's name in the log line of a failed step.
   */
  constructor(
    private readonly links: RedisLinks,
    private readonly base: string,
    private readonly suffixes: readonly string[],
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** The realm's index key, `B:<b64u realm>` (the family's keys start with it and `:`). */
  index(realm: string): string {
    return `${this.base}:${b64u(realm)}`;
  }

  /** `remove_realm`: deletes the realm's keys. */
  removeRealm(realm: string): void {
    const index = this.index(realm);
    this.enqueue('remove', [index, index], [`${index}:`, '']);
  }

  /** `rename_realm`: moves the realm's keys when `to` holds none, else drops them. */
  renameRealm(from: string, to: string): void {
    const a = this.index(from);
    const b = this.index(to);
    this.enqueue('rename', [a, b], [`${a}:`, `${b}:`]);
  }

  private enqueue(step: string, keys: string[], args: string[]): void {
    this.chain = this.chain
      .then(() =>
        this.links.command.eval(REALM_SCRIPT, keys.length, ...keys, ...args, ...this.suffixes),
      )
      .catch((err: unknown) => {
        this.logger.warn(
          { err: (err as Error).message, what: step },
          `cluster ${this.what} realm step failed`,
        );
      });
  }
}
