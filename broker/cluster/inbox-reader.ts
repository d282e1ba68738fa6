/**
 * Reads this node's relay inbox (`<prefix>:inbox:<node>`, a Redis Stream its peers `XADD` to)
 * in order, from where it stopped: docs/cluster.md "What is relayed".
 *
 * The cursor (`<prefix>:cursor:<node>`, a hash `{id, read}`) is written once the durable
 * copies made from the entries up to `id` are stored (one write at a time, the newest), so a
 * node killed at any moment resumes at an entry whose copies may be stored again
 * (at-least-once), never past one whose copies were not. `read` is the inbox's message count
 * (inbox-append.ts) up to the entry at `id`; an entry whose count says more messages came
 * before it than were read, or an empty inbox whose counter is past `read`, tells what was
 * trimmed before this node read it (`missed`, in messages, counted and logged: a node away
 * longer than the retention).
 *
 * Catch-up (`caughtUp`, `GET /ready`'s `catch_up`): the inbox's message count when the cursor
 * was first loaded is the backlog this node found at start; once `read` reaches it and the
 * copies of those entries are stored, the node has caught up (and stays so: a later outage is
 * the readiness probe's `redis` check).
 *
 * The loop runs on its own connection (`XREAD BLOCK` holds it), retries with a back-off while
 * Redis is down, and notices Redis restarted empty (the cursor hash is gone: start again at 0).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logging/logger';
import { inboxState } from './inbox-append';
import { readEntry } from './inbox-batch';

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
  /** The stores of the batches taken so far, settled in order. */
  private storesDone: Promise<unknown> = Promise.resolve();
  /** The cursor write on its way (one at a time), and the newest cursor to write after it. */
  private saving: Promise<void> | null = null;
  private cursorTarget: { id: string; read: number } | null = null;
  private resumed = false;
  /** Routing a batch (its entries are read but not all counted yet). */
  private taking = false;
  /** The cursor was read from Redis at least once (the catch-up target can be taken then). */
  private cursorLoaded = false;
  /** Messages (inbox count) to have read to be caught up; null until first known. */
  private catchUpTarget: number | null = null;
  private caughtUpFlag = false;

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

  /** Messages trimmed before this node read them, since start. */
  get missed(): number {
    return this.missedTotal;
  }

  /** Messages in the inbox not read yet, at the last `check()`. */
  get backlog(): number {
    return this.backlogEntries;
  }

  /**
   * Whether this node has read — and stored the copies of — the backlog its inbox held when
   * the reader first reached Redis after start; false until then, true from then on.
   */
  get caughtUp(): boolean {
    return this.caughtUpFlag;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.release();
    await this.loop;
    // The last batch's cursor write is started as its stores settle (before this await resumes).
    await this.storesDone;
    await this.saving;
  }

  /**
   * Compares the inbox's message counter (inbox-append.ts) with what this node read: an empty
   * inbox whose counter is past what was read lost the difference to trimming (counted,
   * logged); `backlog` is the messages added and not read yet. Called on resuming and once
   * per membership cycle. A gap before an entry that is still there is counted as it is read.
   */
  async check(): Promise<void> {
    let length: number;
    let added: number;
    try {
      ({ length, added } = await inboxState(this.command, this.options.inbox));
    } catch {
      return;
    }
    // Entries fetched and not routed yet are neither trimmed nor backlog.
    if (length === 0 && !this.taking && added > this.read) {
      this.countMissed(added - this.read);
      this.read = added;
    }
    this.backlogEntries = Math.max(0, added - this.read);
    // A counter below the target was reset (Redis restarted empty): nothing older is coming.
    if (this.cursorLoaded && (this.catchUpTarget === null || added < this.catchUpTarget)) {
      this.catchUpTarget = added;
    }
    if (!this.taking) this.noteCaughtUp();
  }

  /** Caught up once what was read reaches the target and its copies are stored. */
  private noteCaughtUp(): void {
    const target = this.catchUpTarget;
    if (this.caughtUpFlag || target === null || this.read < target) return;
    void this.storesDone.then(() => {
      this.caughtUpFlag = true;
    });
  }

  private countMissed(missed: number): void {
    this.missedTotal += missed;
    this.logger.error(
      { missed, inbox: this.options.inbox },
      "cluster relay: messages trimmed from this node's inbox before it read them (away longer than cluster.retention_ms, or over retention_bytes)",
    );
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
    this.cursorLoaded = true;
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
    this.taking = true;
    const stores: Promise<void>[] = [];
    try {
      for (const [id, fields] of entries) {
        this.cursor = id;
        // An entry carries the messages a peer routed in one turn, in order (inbox-batch.ts),
        // and the inbox's message count up to it: a count ahead of what was read before it
        // means messages trimmed unread.
        const { texts, added } = readEntry(fields);
        if (added !== null) {
          const before = added - texts.length;
          if (before > this.read) this.countMissed(before - this.read);
          this.read = added;
        } else {
          this.read += texts.length;
        }
        for (let text of texts as (string | null)[]) {
          const referred = this.dereference(text!);
          if (referred) text = await referred;
          if (text === null) continue;
          try {
            const stored = this.handle(text);
            if (stored) stores.push(stored);
          } catch (err) {
            this.logger.error({ err }, 'relayed message not routed');
          }
        }
      }
    } finally {
      this.taking = false;
    }
    this.storesDone = this.storesDone.then(() => Promise.allSettled(stores));
    const settled = { id: this.cursor, read: this.read };
    void this.storesDone.then(() => this.saveCursor(settled));
    this.noteCaughtUp();
  }

  /**
   * Writes the newest cursor whose entries' stores have settled: one `HSET` at a time, and
   * while one is on its way later batches only move the target, so a busy inbox costs one
   * cursor write per Redis round trip rather than one per batch. A crash re-reads at most
   * what was routed since the last write (at-least-once, as before).
   */
  private saveCursor(cursor: { id: string; read: number }): Promise<void> {
    this.cursorTarget = cursor;
    this.saving ??= (async () => {
      while (this.cursorTarget !== null) {
        const { id, read } = this.cursorTarget;
        this.cursorTarget = null;
        try {
          await this.command.hset(this.options.cursorKey, 'id', id, 'read', read);
        } catch (err) {
          // The next batch's write carries the cursor on; a restart re-reads a little more.
          this.logger.debug({ err: (err as Error).message }, 'cluster inbox cursor not saved');
        }
      }
      this.saving = null;
    })();
    return this.saving;
  }
}

/** Orders two stream ids (`<ms>-<seq>`). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || (as ?? 0) - (bs ?? 0);
}
