/**
 * A pino destination writing to a file descriptor (stdout by default) that never blocks the event
 * loop and never retries forever: writes go through `fs.write` one batch at a time, `EAGAIN` is
 * retried after a short pause, and any other error (`EPIPE` once the reader is gone, `EBADF`…)
 * stops the destination for good and tells its `onClosed` listeners. Used instead of pino's
 * default (sonic-boom), whose `flushSync` — called by `logger.fatal` and at exit — sleeps and
 * retries an `EPIPE` forever, spinning a broker whose console died (issue 8 item 14).
 *
 * Memory is bounded: past `maxQueuedBytes` (default 4 MiB) of unwritten lines, new lines are
 * dropped and counted; a warning line with the count follows once the queue drains.
 */
import { write, writeSync } from 'node:fs';

const DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** Pause before retrying a write the reader was not ready for (`EAGAIN`), in ms. */
const RETRY_MS = 20;

export interface FdDestinationOptions {
  /** Largest amount of unwritten output kept, in bytes (UTF-16 units, close enough). Default 4 MiB. */
  maxQueuedBytes?: number;
}

export class FdDestination {
  private queue: string[] = [];
  private queuedBytes = 0;
  private writing = false;
  private closedError: Error | null = null;
  private dropped = 0;
  private readonly maxQueuedBytes: number;
  private readonly closedListeners = new Set<(error: Error) => void>();

  constructor(
    readonly fd: number,
    options: FdDestinationOptions = {},
  ) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  }

  /** True once a write failed for good (the reader is gone); nothing is written after that. */
  get closed(): boolean {
    return this.closedError !== null;
  }

  /** Lines dropped so far because the queue was full. */
  get droppedLines(): number {
    return this.dropped;
  }

  /** Called once, with the error, when the destination closes; at once if it already has. */
  onClosed(listener: (error: Error) => void): () => void {
    if (this.closedError) listener(this.closedError);
    else this.closedListeners.add(listener);
    return () => this.closedListeners.delete(listener);
  }

  /** pino's destination interface: one serialised line (with its newline). */
  write(line: string): boolean {
    if (this.closedError) return true;
    if (this.queuedBytes + line.length > this.maxQueuedBytes) {
      this.dropped += 1;
      return true;
    }
    this.queue.push(line);
    this.queuedBytes += line.length;
    if (!this.writing) this.pump();
    return true;
  }

  /**
   * Writes what is queued synchronously, once (pino calls it after `fatal`; we call it at exit).
   * Gives up at the first error instead of retrying, so it always returns promptly.
   */
  flushSync(): void {
    if (this.closedError || this.queue.length === 0) return;
    let data = Buffer.from(this.takeQueue(), 'utf8');
    try {
      while (data.length > 0) {
        const n = writeSync(this.fd, data);
        if (n <= 0) break;
        data = data.subarray(n);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') this.close(error as Error);
    }
  }

  private takeQueue(): string {
    const text = this.queue.join('');
    this.queue = [];
    this.queuedBytes = 0;
    return text;
  }

  private pump(): void {
    if (this.closedError) return;
    if (this.queue.length === 0 && this.dropped > 0) {
      this.queue.push(droppedNotice(this.dropped));
      this.dropped = 0;
    }
    if (this.queue.length === 0) {
      this.writing = false;
      return;
    }
    this.writing = true;
    this.send(Buffer.from(this.takeQueue(), 'utf8'));
  }

  private send(data: Buffer): void {
    write(this.fd, data, 0, data.length, null, (error, written) => {
      if (error) {
        if (error.code === 'EAGAIN') {
          setTimeout(() => this.send(data), RETRY_MS).unref();
          return;
        }
        this.close(error);
        return;
      }
      if (written < data.length) this.send(data.subarray(written));
      else this.pump();
    });
  }

  private close(error: Error): void {
    if (this.closedError) return;
    this.closedError = error;
    this.writing = false;
    this.queue = [];
    this.queuedBytes = 0;
    for (const listener of this.closedListeners) listener(error);
    this.closedListeners.clear();
  }
}

function droppedNotice(count: number): string {
  return `${JSON.stringify({
    level: 40,
    time: Date.now(),
    msg: 'log lines dropped: the reader of this output is too slow',
    dropped: count,
  })}\n`;
}
