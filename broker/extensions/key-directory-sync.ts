/**
 * The key directory shared over Redis in a cluster (`spec/protocol-extensions.md` §2.4), with
 * Note 2-D's Fix, and the principal pins shared too (Switchboard: a pin on one node must hold
 * on every node, or a key could be substituted through another node).
 *
 * Redis keys (under the cluster prefix, the reference's names and JSON format):
 * - `<prefix>:e2eekeys` — one JSON document `{"<realm>": {"<identity>": [<entry>, …]}}`;
 * - `<prefix>:e2eekeys:changed` — channel, `{"node_id":"<publishing node>"}`;
 * - `<prefix>:e2eepins` — hash `<realm>\u0000<identity>` → principal (Switchboard), first
 *   writer wins (`HSETNX`).
 *
 * Behaviour:
 * - Mirror: after a local publish, this node's list for (realm, identity) replaces the
 *   document's in one Lua script (atomic: no lost update between nodes), then the change is
 *   published. Writes are serialized on a per-node chain; errors are logged, not retried.
 * - Adopt: at start-up (each time Redis is ready) and on every change message of another node,
 *   the local directory is made **equal** to the document (Note 2-D: identities and realms
 *   missing from it are removed locally), entries filtered as §2.4 says (string `public_key`
 *   ≤ 4,096, string `key_id` ≤ 128, at most 8). An identity with a local publish not yet
 *   mirrored is left alone; its mirror follows. Pins are adopted from the hash.
 * - Realm commands: `remove_realm` deletes `doc[realm]` and the realm's pins; `rename_realm`
 *   moves `doc[from]` to `doc[to]` when `doc[to]` is absent and deletes `doc[from]` in every
 *   case (idempotent, so every node may run it).
 */
import { z } from 'zod';
import { ExtensionLimit, type PublishedKey } from '../../shared/protocol-extensions';
import type { RedisLinks } from '../cluster/redis-links';
import type { Logger } from '../logging/logger';
import type { ExtensionState, KeyDirectoryMirror, SharedRealmState } from './extension-state';

/** KEYS[1] doc; ARGV: op, realm, identity|to, list JSON. Returns nothing. */
const UPDATE_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
local doc = {}
if raw then
  local ok, parsed = pcall(cjson.decode, raw)
  if ok and type(parsed) == 'table' then doc = parsed end
end
local op, realm = ARGV[1], ARGV[2]
if op == 'set' then
  if type(doc[realm]) ~= 'table' then doc[realm] = {} end
  doc[realm][ARGV[3]] = cjson.decode(ARGV[4])
elseif op == 'drop' then
  doc[realm] = nil
elseif op == 'move' then
  if doc[ARGV[3]] == nil and doc[realm] ~= nil then doc[ARGV[3]] = doc[realm] end
  doc[realm] = nil
end
if next(doc) == nil then redis.call('SET', KEYS[1], '{}') else redis.call('SET', KEYS[1], cjson.encode(doc)) end
return 1
`;

/**
 * KEYS[1] pins; ARGV: old realm prefix (`<realm>\0`), new prefix or ''. Deletes the realm's
 * fields, first copying each to the new prefix (when given and not taken there).
 */
const PINS_SCRIPT = `
local fields = redis.call('HKEYS', KEYS[1])
local n = 0
for _, f in ipairs(fields) do
  if string.sub(f, 1, #ARGV[1]) == ARGV[1] then
    if ARGV[2] ~= '' then
      redis.call('HSETNX', KEYS[1], ARGV[2] .. string.sub(f, #ARGV[1] + 1), redis.call('HGET', KEYS[1], f))
    end
    redis.call('HDEL', KEYS[1], f)
    n = n + 1
  end
end
return n
`;

const Entry = z.object({ key_id: z.string(), public_key: z.string() }).passthrough();

/** §2.4's adoption filter. */
function adoptable(list: unknown): PublishedKey[] {
  if (!Array.isArray(list)) return [];
  const kept: PublishedKey[] = [];
  for (const raw of list) {
    const e = Entry.safeParse(raw);
    if (!e.success) continue;
    const { key_id, public_key } = e.data;
    if (public_key.length > ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH) continue;
    if (key_id.length > ExtensionLimit.E2EE_MAX_KEY_ID_LENGTH) continue;
    const alg = typeof e.data.alg === 'string' ? e.data.alg : '';
    const at = typeof e.data.updated_at === 'string' ? e.data.updated_at : '';
    kept.push({ key_id, alg, public_key, updated_at: at });
    if (kept.length === ExtensionLimit.E2EE_MAX_KEYS_PER_IDENTITY) break;
  }
  return kept;
}

const pinField = (realm: string, identity: string) => `${realm}\u0000${identity}`;

/**
 * The document's lists by realm and identity, each through §2.4's adoption filter (identities
 * left with none are left out); null when the text is not a JSON object (absent: empty).
 */
function parseDocument(text: string | null): Map<string, Map<string, PublishedKey[]>> | null {
  let doc: unknown = {};
  try {
    doc = text ? (JSON.parse(text) as unknown) : {};
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return null;
  const realms = new Map<string, Map<string, PublishedKey[]>>();
  for (const [realm, identities] of Object.entries(doc as Record<string, unknown>)) {
    if (typeof identities !== 'object' || identities === null) continue;
    const lists = new Map<string, PublishedKey[]>();
    for (const [identity, list] of Object.entries(identities as Record<string, unknown>)) {
      const kept = adoptable(list);
      if (kept.length > 0) lists.set(identity, kept);
    }
    realms.set(realm, lists);
  }
  return realms;
}

/** A Redis glob matching `text` literally (`MATCH` of `HSCAN`). */
const globLiteral = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

export class KeyDirectorySync implements KeyDirectoryMirror {
  /** The per-node chain; it starts once the stored state is restored (no stale overwrite). */
  private chain: Promise<unknown>;
  /** (realm, identity) fields with a local publish not yet mirrored: adoption skips them. */
  private readonly unmirrored = new Map<string, number>();
  private readonly docKey: string;
  private readonly channel: string;
  private readonly pinKey: string;

  constructor(
    private readonly links: RedisLinks,
    prefix: string,
    private readonly nodeId: string,
    private readonly state: ExtensionState,
    private readonly logger: Logger,
  ) {
    this.docKey = `${prefix}:e2eekeys`;
    this.channel = `${prefix}:e2eekeys:changed`;
    this.pinKey = `${prefix}:e2eepins`;
    this.chain = state.ready;
  }

  /** Subscribes to the change channel and adopts whenever Redis is (again) ready. */
  start(): void {
    this.links.listen(this.channel, (text) => {
      let from: unknown;
      try {
        from = (JSON.parse(text) as { node_id?: unknown }).node_id;
      } catch {
        from = undefined;
      }
      if (from !== this.nodeId) this.enqueue('adopt', () => this.adopt());
    });
    this.links.command.on('ready', () => this.enqueue('adopt', () => this.adopt()));
    if (this.links.command.status === 'ready') this.enqueue('adopt', () => this.adopt());
  }

  /**
   * Claims the cluster-wide pin of (realm, identity) for `principal` (null: only reads it).
   * Resolves with the pin in force (null: none), which the caller compares; with Redis down it
   * resolves with the local pin (the node keeps serving).
   */
  async claimPin(
    realm: string,
    identity: string,
    principal: string | null,
  ): Promise<string | null> {
    const local = this.state.pins.get(realm, identity) ?? null;
    if (this.links.command.status !== 'ready') return local;
    try {
      const field = pinField(realm, identity);
      if (principal !== null) await this.links.command.hsetnx(this.pinKey, field, principal);
      const pin = await this.links.command.hget(this.pinKey, field);
      if (pin !== null && pin !== local) await this.state.pins.set(realm, identity, pin);
      return pin ?? local;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, realm }, 'cluster pin not read');
      return local;
    }
  }

  /** Mirrors this node's list of (realm, identity) to the document (after a local publish). */
  mirror(realm: string, identity: string): void {
    const field = pinField(realm, identity);
    this.unmirrored.set(field, (this.unmirrored.get(field) ?? 0) + 1);
    this.enqueue('mirror', async () => {
      try {
        const list = this.state.keys.get(realm, identity) ?? [];
        await this.update('set', realm, identity, JSON.stringify(list));
      } finally {
        const n = (this.unmirrored.get(field) ?? 1) - 1;
        if (n > 0) this.unmirrored.set(field, n);
        else this.unmirrored.delete(field);
      }
    });
  }

  /**
   * Drops the shared pin of (realm, identity) after an operator's unpin. The other nodes keep
   * their local copy of the pin (adoption only adds pins): run the unpin on each node, or
   * restart them, for the identity to be claimable everywhere (docs/management.md).
   */
  unpin(realm: string, identity: string): void {
    this.enqueue('unpin', async () => {
      await this.links.command.hdel(this.pinKey, pinField(realm, identity));
    });
  }

  /**
   * The keys and pins of `realm` as Redis holds them (`list_identities` on a clustered node: the
   * same answer from every node, not this node's adopted copy). An unreadable document reads
   * as an empty directory, as adoption would leave it.
   * @throws when Redis cannot be reached (the links fail fast)
   */
  async sharedRealm(realm: string): Promise<SharedRealmState> {
    const prefix = pinField(realm, '');
    const pins = new Map<string, string>();
    let cursor = '0';
    do {
      const [next, flat] = await this.links.command.hscan(
        this.pinKey,
        cursor,
        'MATCH',
        `${globLiteral(prefix)}*`,
        'COUNT',
        1_000,
      );
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const field = flat[i]!;
        if (field.startsWith(prefix)) pins.set(field.slice(prefix.length), flat[i + 1]!);
      }
      cursor = next;
    } while (cursor !== '0');
    const doc = parseDocument(await this.links.command.get(this.docKey));
    return { keys: doc?.get(realm) ?? new Map(), pins };
  }

  /** `remove_realm`: the realm's document entry and pins, on every node. */
  removeRealm(realm: string): void {
    this.enqueue('remove', async () => {
      await this.links.command.eval(PINS_SCRIPT, 1, this.pinKey, `${realm}\u0000`, '');
      await this.update('drop', realm, '', '');
    });
  }

  /** `rename_realm`: moves the realm's document entry and pins (idempotent on every node). */
  renameRealm(from: string, to: string): void {
    this.enqueue('rename', async () => {
      await this.links.command.eval(PINS_SCRIPT, 1, this.pinKey, `${from}\u0000`, `${to}\u0000`);
      await this.update('move', from, to, '');
    });
  }

  private async update(op: string, realm: string, arg: string, list: string): Promise<void> {
    await this.links.command.eval(UPDATE_SCRIPT, 1, this.docKey, op, realm, arg, list);
    await this.links.command.publish(this.channel, JSON.stringify({ node_id: this.nodeId }));
  }

  /** Makes the local directory equal to the document, and adopts the shared pins. */
  private async adopt(): Promise<void> {
    const [text, pins] = await Promise.all([
      this.links.command.get(this.docKey),
      this.links.command.hgetall(this.pinKey),
    ]);
    const wanted = parseDocument(text);
    if (!wanted) {
      this.logger.warn({ key: this.docKey }, 'cluster key document unreadable; not adopted');
      return;
    }
    const writes: Promise<void>[] = [];
    for (const [realm, identity] of this.state.keys.entries()) {
      if (this.unmirrored.has(pinField(realm, identity))) continue;
      if (!wanted.get(realm)?.has(identity)) writes.push(this.state.keys.delete(realm, identity));
    }
    for (const [realm, lists] of wanted) {
      for (const [identity, list] of lists) {
        if (this.unmirrored.has(pinField(realm, identity))) continue;
        const mine = this.state.keys.get(realm, identity);
        if (JSON.stringify(mine) !== JSON.stringify(list)) {
          writes.push(this.state.keys.set(realm, identity, list));
        }
      }
    }
    for (const [field, principal] of Object.entries(pins)) {
      const cut = field.indexOf('\u0000');
      if (cut < 0) continue;
      const realm = field.slice(0, cut);
      const identity = field.slice(cut + 1);
      if (this.state.pins.get(realm, identity) !== principal) {
        writes.push(this.state.pins.set(realm, identity, principal));
      }
    }
    await Promise.all(writes);
  }

  private enqueue(what: string, work: () => Promise<void>): void {
    this.chain = this.chain.then(work).catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message, what }, 'cluster key directory step failed');
    });
  }
}

/** The sync of a clustered node, started; null when not clustered. */
export function keyDirectorySync(
  cluster: { links: RedisLinks | null; settings: { prefix: string } | null; nodeId: string | null },
  state: ExtensionState,
  logger: Logger,
): KeyDirectorySync | null {
  if (!cluster.links || !cluster.settings) return null;
  const sync = new KeyDirectorySync(
    cluster.links,
    cluster.settings.prefix,
    cluster.nodeId ?? 'node',
    state,
    logger,
  );
  sync.start();
  return sync;
}
