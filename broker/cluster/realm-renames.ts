/**
 * `rename_realm` on every node of a cluster (docs/cluster.md "Renaming a realm"; issue 20
 * defect 3): the node that ran the command moved its own data and the shared store's; every
 * other node moves its own — MQTT state in aedes, queue counts, copies awaiting an ACK, the
 * realm registry and, with a per-node SQLite or memory store, that store's rows.
 *
 * Redis keys (under the cluster prefix):
 * - `<prefix>:realm:renames` — the rename log: a list of JSON entries
 *   `{seq, from, to, by_node, at, store}` (the last RENAME_LOG_MAX), oldest first;
 * - `<prefix>:realm:renames:seq` — the last sequence number given;
 * - `<prefix>:realm:renamed` — channel; each entry is published there as it is logged.
 * `store` names the originating node's store when it is shared (a Redis store: URL without
 * password and key prefix; `""` otherwise): a node whose store has the same name skips the
 * store's step, so shared copies move once.
 *
 * Behaviour:
 * - Announce: the originating node holds the cluster's settings publication from before the
 *   config change until the entry is logged and published (or the rename failed), so every
 *   peer receives the notice before the document without the old name.
 * - Apply (peer): while its config still has `from`, the peer waits for the document that
 *   drops it (at most SETTINGS_WAIT_MS) and, in the same turn as that change, closes its
 *   sessions of `from` for reconnection (socket.io transports closed, MQTT clients without
 *   wills), so stock clients re-authenticate under the cluster's new config rather than being
 *   ended as of a removed realm; then it runs the local move and logs the result.
 * - Catch up: a node that was down replays, once Redis answers, the entries it has not
 *   applied: at the first sync, the entries whose `from` its own config (as loaded at start)
 *   has and whose `to` it has not, in order (a node that applied a rename has the new name
 *   in its persisted config); after a reconnection, the entries after the last it saw.
 *   Replaying is idempotent: a move finds nothing under `from`, or refuses a `to` that holds
 *   data.
 * - Redis outages: an entry that could not be logged is kept and logged when Redis is back.
 */
import type { AuthState } from '../auth/auth-state';
import type { Logger } from '../logging/logger';
import type { Settings } from '../config/settings-schema';
import { DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_URL, safeRedisUrl } from '../storage/redis-keys';
import type { RedisLinks } from './redis-links';
import { SETTINGS_WAIT_MS } from './settings-sync';

/** Entries kept in the rename log. */
export const RENAME_LOG_MAX = 1_000;

/** One rename, as logged and published. */
export interface RealmRenameEntry {
  seq: number;
  from: string;
  to: string;
  by_node: string;
  at: number;
  /** The originating node's store when shared (see the header), else `""`. */
  store: string;
}

/** What a node does with a rename made elsewhere (wired by `createBroker`). */
export interface LocalRealmRename {
  /** Closes this node's sessions of `realm` so their clients re-authenticate; how many. */
  closeSessions(realm: string): number;
  /** Moves this node's own data of `from` to `to` (realm-data-move.ts); null: `to` held data. */
  move(from: string, to: string, storeMoved: boolean): Promise<object | null>;
}

export interface RealmRenamesDeps {
  nodeId: string;
  prefix: string;
  links: RedisLinks;
  auth: AuthState;
  /** This node's store name when shared (see the header), else `""` (read at each use). */
  store(): string;
  local: LocalRealmRename;
  /** Holds the cluster's settings publication until `until` settles (SettingsSync.hold). */
  holdSettings(until: Promise<unknown>): void;
  logger: Logger;
}

/**
 * KEYS: log, seq. ARGV: from, to, node id, at, store, max entries, channel.
 * Returns the entry's sequence number.
 */
const LOG_SCRIPT = `
local seq = redis.call('INCR', KEYS[2])
local entry = cjson.encode({seq = seq, from = ARGV[1], to = ARGV[2], by_node = ARGV[3],
  at = tonumber(ARGV[4]), store = ARGV[5]})
redis.call('RPUSH', KEYS[1], entry)
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[6]), -1)
redis.call('PUBLISH', ARGV[7], entry)
return seq
`;

/**
 * The name of a Redis store as the rename log records it (URL without password, key prefix),
 * or `""` when `backend` (the running store's: a Redis store may have fallen back) is not Redis.
 */
export function sharedStoreName(settings: Settings, backend: string): string {
  if (settings.storage !== 'redis' || backend !== 'redis') return '';
  const o = settings.storage_options;
  return `${safeRedisUrl(o.url ?? DEFAULT_REDIS_URL)}#${o.prefix ?? DEFAULT_REDIS_PREFIX}`;
}

type Pending = Omit<RealmRenameEntry, 'seq'>;

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

export class RealmRenames {
  private readonly logKey: string;
  private readonly seqKey: string;
  private readonly channel: string;
  /** The last sequence number this node applied or skipped (-1: not synced yet). */
  private seen = -1;
  /** Realm names of this node's config as loaded at start (the first catch-up's base). */
  private readonly startRealms: Set<string>;
  /** Renames of this node not yet logged (Redis was down). */
  private readonly outbox: Pending[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  private started = false;

  constructor(private readonly deps: RealmRenamesDeps) {
    this.logKey = `${deps.prefix}:realm:renames`;
    this.seqKey = `${deps.prefix}:realm:renames:seq`;
    this.channel = `${deps.prefix}:realm:renamed`;
    this.startRealms = new Set(Object.keys(deps.auth.config.realms));
  }

  /** Follows the cluster's renames and catches up with those missed. Never rejects. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.deps.links.listen(this.channel, (text) => {
      const entry = parseEntry(text);
      if (entry === null) {
        this.deps.logger.warn({ channel: this.channel }, 'invalid realm rename notice ignored');
        return;
      }
      void this.enqueue(() => this.received(entry));
    });
    for (const link of [this.deps.links.command, this.deps.links.subscriber]) {
      link.on('ready', () => {
        void this.enqueue(() => this.catchUp());
      });
    }
    await this.enqueue(() => this.catchUp());
  }

  /**
   * The originating node, before its config changes: holds the settings publication until
   * `announce` (the rename succeeded: logged and published) or `cancel` (it did not).
   */
  begin(from: string, to: string): { announce(): Promise<void>; cancel(): void } {
    let release!: () => void;
    this.deps.holdSettings(new Promise<void>((resolve) => (release = resolve)));
    return {
      announce: async () => {
        try {
          await this.log({
            from,
            to,
            by_node: this.deps.nodeId,
            at: Date.now(),
            store: this.deps.store(),
          });
        } finally {
          release();
        }
      },
      cancel: () => release(),
    };
  }

  close(): void {
    this.closed = true;
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const run = () =>
      this.closed
        ? Promise.resolve()
        : work().catch((err: unknown) => {
            this.deps.logger.error({ err }, 'cluster realm rename failed');
          });
    const next = this.chain.then(run, run);
    this.chain = next;
    return next;
  }

  /** Logs and publishes a rename of this node; kept for later when Redis is down. */
  private async log(pending: Pending): Promise<void> {
    try {
      const seq = (await this.deps.links.command.eval(
        LOG_SCRIPT,
        2,
        this.logKey,
        this.seqKey,
        pending.from,
        pending.to,
        pending.by_node,
        String(pending.at),
        pending.store,
        String(RENAME_LOG_MAX),
        this.channel,
      )) as number;
      this.deps.logger.info({ seq, from: pending.from, to: pending.to }, 'realm rename announced');
    } catch (err) {
      this.outbox.push(pending);
      this.deps.logger.warn(
        { err: (err as Error).message, from: pending.from, to: pending.to },
        'realm rename not announced (redis unavailable); announced when it is back',
      );
    }
  }

  /** A notice on the channel. */
  private async received(entry: RealmRenameEntry): Promise<void> {
    // Before the first catch-up, the log is read whole by it.
    if (this.seen < 0 || entry.seq <= this.seen) return;
    await this.apply(entry);
  }

  /** First sync: replay what this node's config says it missed; later: entries after `seen`. */
  private async catchUp(): Promise<void> {
    if (!this.deps.links.up) return;
    for (const pending of this.outbox.splice(0)) await this.log(pending);
    const texts = await this.deps.links.command.lrange(this.logKey, 0, -1);
    const entries = texts.map(parseEntry).filter((e): e is RealmRenameEntry => e !== null);
    if (this.seen < 0) {
      const last = Number((await this.deps.links.command.get(this.seqKey)) ?? 0) || 0;
      const names = this.startRealms;
      for (const entry of entries) {
        if (entry.by_node === this.deps.nodeId || !names.has(entry.from) || names.has(entry.to)) {
          continue;
        }
        names.delete(entry.from);
        names.add(entry.to);
        this.deps.logger.info(
          { seq: entry.seq, from: entry.from, to: entry.to },
          'replaying a realm rename missed while away',
        );
        await this.move(entry);
      }
      this.seen = Math.max(last, ...entries.map((e) => e.seq));
      return;
    }
    const first = entries[0]?.seq ?? 0;
    if (first > this.seen + 1) {
      this.deps.logger.warn(
        { seen: this.seen, oldest: first },
        'realm renames dropped from the log before this node read them',
      );
    }
    for (const entry of entries) if (entry.seq > this.seen) await this.apply(entry);
  }

  /** A rename made elsewhere: wait for the config, close sessions, move. */
  private async apply(entry: RealmRenameEntry): Promise<void> {
    this.seen = Math.max(this.seen, entry.seq);
    if (entry.by_node === this.deps.nodeId) return;
    const { auth } = this.deps;
    let closed = 0;
    if (has(auth.config.realms, entry.from)) {
      // The document dropping `from` follows the notice: close the sessions in its turn.
      closed = await new Promise<number>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          stop();
          resolve(this.deps.local.closeSessions(entry.from));
        };
        const stop = auth.onChange((next) => {
          if (!has(next.realms, entry.from)) done();
        });
        const timer = setTimeout(() => {
          this.deps.logger.warn(
            { from: entry.from, to: entry.to },
            "renamed realm still in this node's config; moving its data anyway",
          );
          done();
        }, SETTINGS_WAIT_MS);
        timer.unref();
      });
    } else {
      closed = this.deps.local.closeSessions(entry.from);
    }
    await this.move(entry, closed);
  }

  private async move(entry: RealmRenameEntry, closed = 0): Promise<void> {
    const storeMoved = entry.store !== '' && entry.store === this.deps.store();
    const moved = await this.deps.local.move(entry.from, entry.to, storeMoved);
    const fields = {
      seq: entry.seq,
      from: entry.from,
      to: entry.to,
      by_node: entry.by_node,
      disconnected_sockets: closed,
    };
    if (moved === null) {
      this.deps.logger.warn(
        fields,
        'realm renamed on another node; local data not moved: target holds data',
      );
    } else {
      this.deps.logger.info(
        { ...fields, ...moved, store_moved: storeMoved },
        'realm renamed on another node; local data moved',
      );
    }
  }
}

function parseEntry(text: string): RealmRenameEntry | null {
  try {
    const e = JSON.parse(text) as Partial<RealmRenameEntry>;
    if (
      typeof e.seq === 'number' &&
      typeof e.from === 'string' &&
      typeof e.to === 'string' &&
      typeof e.by_node === 'string' &&
      typeof e.at === 'number' &&
      typeof e.store === 'string' &&
      e.from !== '' &&
      e.to !== ''
    ) {
      return {
        seq: e.seq,
        from: e.from,
        to: e.to,
        by_node: e.by_node,
        at: e.at,
        store: e.store,
      };
    }
  } catch {
    // fall through
  }
  return null;
}
