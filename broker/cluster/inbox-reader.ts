/**
 * Reads this node's relay inbox (`<prefix>:inbox:<node>`, a Redis Stream its peers `XADD` to)
 * in order, from where it stopped: docs/cluster.md "What is relayed".
 *
 * The cursor (`<prefix>:cursor:<node>`, a hash `{id, read}`) is written once the durable
 * copies made from the entries up to `id` are stored, so a node killed at any moment resumes at
 * an entry whose copies may be stored again (at-least-once), never past one whose copies were
 * not. `read` counts the entries taken from the inbox since it was created; with the stream's
 * `entries-added` and length it says how many were trimmed before this node read them
 * (`missed`, counted and logged: a node away longer than the retention).
 *
 * The loop runs on its own connection (`XREAD BLOCK` holds it), retries with a back-off while
 * Redis is down, and notices Redis restarted empty (the cursor hash is gone: start again at 0).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logging/logger';

/**
 * What the reader does with one entry's text: routes it, returning what resolves once its
 * durable copies are stored (null: nothing to wait for).
 */
export type InboxHandler = (text: string) => Promise<void> | null;

/**
 * The text to route for an entry that refers to a stored one (a large message), or null when
 * it does not refer to one; awaited before the entries after it, so order is kept.
 */
export type InboxDereference = (text: string) => Promise<string | null> | null;

export interface InboxReaderOptions {
  inbox: string;
  cursorKey: string;
  /** Entries per `XREAD` (default 500). */
  batch?: number;
}

/** `XREAD` reply: `[[stream, [[id, [field, value, …]], …]]]` or null on timeout. */
type XReadReply = [string, [string, string[]][]][] | null;

export class InboxReader {
  private cursor = '0-0';
  private read = 0;
  private missedTotal = 0;
  private backlogEntries = 0;
  private closed = false;
  private loop: Promise<void> | null = null;
  /** Cursor writes in order, each after the stores of the entries it covers. */
  private saving: Promise<void> = Promise.resolve();
  private resumed = false;

  constructor(
    private readonly options: InboxReaderOptions,
    /** The blocking connection (its own; closed by `close`). */
    private readonly reader: Redis,
    /** A connection for the cursor and `XINFO` (the shared command link). */
    private readonly command: Redis,
    private readonly handle: InboxHandler,
    private readonly logger: Logger,
    private readonly dereference: InboxDereference = () => null,
    /** Ends the blocking connection for good (its reconnection included). */
    private readonly release: () => void = () => reader.disconnect(),
  ) {}

  /** Entries trimmed before this node read them, since start. */
  get missed(): number {
    return this.missedTotal;
  }

  /** Entries in the inbox not read yet, at the last `check()`. */
  get backlog(): number {
    return this.backlogEntries;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.release();
    await this.loop;
    await this.saving;
  }

  /**
   * Compares the inbox's counters with what this node read: counts what was trimmed unread
   * (logged) and updates `backlog`. Called on resuming and once per membership cycle.
   */
  async check(): Promise<void> {
    let info: unknown[];
    try {
      info = (await this.command.xinfo('STREAM', this.options.inbox)) as unknown[];
    } catch (err) {
      // No stream yet: nobody wrote to this node.
      if (/no such key/i.test((err as Error).message)) this.backlogEntries = 0;
      return;
    }
    const field = (name: string): number => {
      const i = info.indexOf(name);
      return i >= 0 ? Number(info[i + 1]) : 0;
    };
    const added = field('entries-added');
    const length = field('length');
    const trimmed = added - length;
    if (trimmed > this.read) {
      const missed = trimmed - this.read;
      this.read = trimmed;
      this.missedTotal += missed;
      this.logger.error(
        { missed, inbox: this.options.inbox },
        "cluster relay: messages trimmed from this node's inbox before it read them (away longer than cluster.retention_ms, or over retention_bytes)",
      );
    }
    this.backlogEntries = Math.max(0, added - this.read);
  }

  private async run(): Promise<void> {
    let failures = 0;
    /** The read of what follows the batch being routed, asked for before routing it. */
    let next: Promise<XReadReply> | null = null;
    while (!this.closed) {
      try {
        if (!this.resumed) {
          next = null;
          await this.resume();
        }
        const reply = await (next ?? this.xread(this.cursor));
        next = null;
        failures = 0;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length > 0) {
          // The wait for the next entries overlaps the routing of these (one round trip less
          // per batch on the relay's latency); order holds, batches are routed one by one.
          next = this.xread(entries[entries.length - 1]![0]);
          next.catch(() => undefined); // a failure surfaces where it is awaited
          await this.take(entries);
        }
      } catch (err) {
        next = null;
        if (this.closed) return;
        failures += 1;
        // Connection lost or Redis down: resume from Redis's cursor once it answers again.
        this.resumed = false;
        if (failures === 1) {
          this.logger.debug({ err: (err as Error).message }, 'cluster inbox read failed; retrying');
        }
        await this.pause(Math.min(100 * failures, 2_000));
      }
    }
  }

  private xread(from: string): Promise<XReadReply> {
    return this.reader.xread(
      'COUNT',
      this.options.batch ?? 500,
      'BLOCK',
      2_000,
      'STREAMS',
      this.options.inbox,
      from,
    ) as Promise<XReadReply>;
  }

  /**
   * Waits `ms` after a failed read, or less: until the connection is ready again (after a
   * reconnect or a Sentinel failover the inbox is read at once, not at the end of a back-off).
   */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.reader.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (this.reader.status === 'ready') return;
      this.reader.once('ready', done);
    });
  }

  /** Reads the stored cursor (Redis restarted empty: from the start) and checks for losses. */
  private async resume(): Promise<void> {
    const stored = await this.command.hmget(this.options.cursorKey, 'id', 'read');
    if (stored[0]) {
      if (compareIds(stored[0], this.cursor) > 0 || this.read === 0) {
        this.cursor = stored[0];
        this.read = Number(stored[1] ?? 0);
      }
    } else if (this.read > 0) {
      this.logger.warn(
        { inbox: this.options.inbox },
        'cluster relay state is gone from Redis (restarted empty?): reading the inbox from its start',
      );
      this.cursor = '0-0';
      this.read = 0;
    }
    await this.check();
    if (this.backlogEntries > 0) {
      // A node back from a restart or an outage: say what it is catching up on.
      this.logger.info(
        { inbox: this.options.inbox, backlog: this.backlogEntries, missed: this.missedTotal },
        'cluster relay: catching up on the messages peers relayed while this node was away',
      );
    }
    this.resumed = true;
  }

  private async take(entries: [string, string[]][]): Promise<void> {
    const stores: Promise<void>[] = [];
    for (const [id, fields] of entries) {
      this.cursor = id;
      this.read += 1;
      let text: string | null | undefined = fields[1];
      if (typeof text !== 'string') continue;
      const referred = this.dereference(text);
      if (referred) text = await referred;
      if (text === null) continue;
      try {
        const stored = this.handle(text);
        if (stored) stores.push(stored);
      } catch (err) {
        this.logger.error({ err }, 'relayed message not routed');
      }
    }
    const id = this.cursor;
    const read = this.read;
    const done = Promise.allSettled(stores);
    this.saving = this.saving
      .then(() => done)
      .then(() => this.command.hset(this.options.cursorKey, 'id', id, 'read', read))
      .then(
        () => undefined,
        (err: unknown) => {
          // The next batch's write carries the cursor on; a restart re-reads a little more.
          this.logger.debug({ err: (err as Error).message }, 'cluster inbox cursor not saved');
        },
      );
  }
}

/** Orders two stream ids (`<ms>-<seq>`). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || (as ?? 0) - (bs ?? 0);
}
