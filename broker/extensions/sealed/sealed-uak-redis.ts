/**
 * The sealed UAK records of a clustered node, kept in Redis (`spec/protocol-extensions.md` §4.5,
 * §4.9 and §10, with Note 4-J's Switchboard option): a `SEALED_UAK_SET` on one node is checked
 * by a `SEALED_DELIVER` on any node. The reference keeps them node-local; §10's row says so.
 *
 * Redis keys, under the cluster prefix `P` (`b64u` = base64url of the UTF-8 text, so no part
 * contains `:`):
 * - `P:uaks:<b64u realm>:<b64u identity>` — string, JSON `{mode, digest}`: `digest` is the
 *   HMAC-SHA256 hex of the 16 UAK bytes (`SealedConfig.uakDigest`, Note 4-J: never the UAK
 *   in clear), null when `unrestricted`;
 * - `P:uaks:<b64u realm>` — set of the realm's `<b64u identity>` (lets `remove_realm` /
 *   `rename_realm` find the records without scanning the keyspace, `realm-index-steps.ts`).
 *
 * A set is `SET` + `SADD` in one script (atomic across nodes). Ownership (§1.5, Note 1.5-A)
 * is checked before, by the cluster-wide pin (`sealed-guard.ts`), so an identity registered on
 * another node under another credential cannot replace the record. Redis unreachable: every
 * call rejects with `SealedUakUnavailable` (the handlers answer 503; a record is never read
 * from anywhere else). Nothing expires: records outlive node restarts while Redis keeps them.
 */
import { z } from 'zod';
import { SealedMode } from '../../../shared/protocol-extensions';
import { RealmIndexSteps } from '../../cluster/realm-index-steps';
import type { RedisLinks } from '../../cluster/redis-links';
import type { Logger } from '../../logging/logger';
import { b64u, unb64u } from '../../storage/redis-keys';
import type { UakRecord } from './sealed-records';

/** KEYS: record, realm index. ARGV: record JSON, identity b64u. */
const SET_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return 1
`;

/** A shared record: the mode and the keyed digest of the UAK (null: `unrestricted`). */
export interface SharedUakRecord {
  mode: UakRecord['mode'];
  /** HMAC-SHA256 hex of the 16 UAK bytes; null when `unrestricted`. */
  digest: string | null;
}

const SharedUakSchema: z.ZodType<SharedUakRecord> = z.object({
  mode: z.enum([SealedMode.REQUIRE_UAK, SealedMode.UNRESTRICTED]),
  digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
});

/** The JSON value of `text`, or null when it is absent or not JSON. */
function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Thrown when Redis cannot be reached (or answers an error): the handlers reply 503. */
export class SealedUakUnavailable extends Error {}

export class SealedUakRedis {
  private readonly base: string;
  private readonly realms: RealmIndexSteps;

  constructor(
    private readonly links: RedisLinks,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.base = `${prefix}:uaks`;
    this.realms = new RealmIndexSteps(links, this.base, [''], logger, 'sealed uak');
  }

  private keys(realm: string, identity: string) {
    const realmIndex = this.realms.index(realm);
    return { realmIndex, record: `${realmIndex}:${b64u(identity)}` };
  }

  /**
   * §4.5: replaces the record of (realm, identity) for every node.
   * @throws SealedUakUnavailable (nothing or everything was stored: one script)
   */
  async set(realm: string, identity: string, record: SharedUakRecord): Promise<void> {
    const k = this.keys(realm, identity);
    try {
      await this.links.command.eval(
        SET_SCRIPT,
        2,
        k.record,
        k.realmIndex,
        JSON.stringify(record),
        b64u(identity),
      );
    } catch (err) {
      throw new SealedUakUnavailable((err as Error).message);
    }
  }

  /**
   * §4.6 check 8: the record of (realm, identity), or undefined (none, or unreadable: logged,
   * and treated as none, so a bad value never admits a sender).
   * @throws SealedUakUnavailable
   */
  async get(realm: string, identity: string): Promise<SharedUakRecord | undefined> {
    let text: string | null;
    try {
      text = await this.links.command.get(this.keys(realm, identity).record);
    } catch (err) {
      throw new SealedUakUnavailable((err as Error).message);
    }
    if (text === null) return undefined;
    const record = SharedUakSchema.safeParse(parseJson(text));
    if (record.success) return record.data;
    this.logger.warn({ realm }, 'cluster sealed UAK record unreadable; not used');
    return undefined;
  }

  /**
   * The modes of `realm`'s records, by identity, as Redis holds them (`list_identities` on a
   * clustered node: the same answer from every node). A record that is gone or unreadable
   * between the index and its read is left out, as `get` would not use it.
   * @throws SealedUakUnavailable
   */
  async modes(realm: string): Promise<Map<string, SharedUakRecord['mode']>> {
    const index = this.realms.index(realm);
    let texts: (string | null)[];
    let members: string[];
    try {
      members = await this.links.command.smembers(index);
      texts =
        members.length === 0
          ? []
          : await this.links.command.mget(...members.map((m) => `${index}:${m}`));
    } catch (err) {
      throw new SealedUakUnavailable((err as Error).message);
    }
    const modes = new Map<string, SharedUakRecord['mode']>();
    members.forEach((member, i) => {
      const record = SharedUakSchema.safeParse(parseJson(texts[i] ?? null));
      if (record.success) modes.set(unb64u(member), record.data.mode);
    });
    return modes;
  }

  /** `remove_realm`: deletes the realm's records (any node; idempotent). */
  removeRealm(realm: string): void {
    this.realms.removeRealm(realm);
  }

  /** `rename_realm`: moves the realm's records when `to` holds none, else drops them. */
  renameRealm(from: string, to: string): void {
    this.realms.renameRealm(from, to);
  }
}

/** The Redis UAK registry of a clustered node; null when not clustered. */
export function sealedUakRedis(
  cluster: { links: RedisLinks | null; settings: { prefix: string } | null },
  logger: Logger,
): SealedUakRedis | null {
  if (!cluster.links || !cluster.settings) return null;
  return new SealedUakRedis(cluster.links, cluster.settings.prefix, logger);
}
