/**
 * One open SSE stream (`spec/protocol-extensions.md` §5.5, §5.7): frame writing, the
 * unflushed-bytes bound, and the catch-up that replays history with back-pressure.
 *
 * Note 5-F: the reference writes the replay in one burst against the 1 MiB bound, so a
 * catch-up over ~1 MiB cut the stream mid-replay. Here replayed (and then buffered) frames are
 * written one at a time, waiting for `drain` whenever the socket's buffer is full, so a 4 MiB
 * catch-up arrives whole; the 1 MiB bound (`SSE_MAX_PENDING_BYTES`) applies to live frames
 * only, and to the live frames buffered while the catch-up runs (with 1,000 frames).
 */
import type { ServerResponse } from 'node:http';
import type { HttpPrincipal } from './http-reply';
import type { HistoryRow } from './sse-history';
import {
  SSE_MAX_PENDING_BYTES,
  SSE_REPLAY_MAX_BYTES,
  SSE_REPLAY_MAX_MESSAGES,
} from './http-publish-schema';

export const TRUNCATED_COMMENT = ': catch-up truncated (replay capped)\n\n';
export const KEEPALIVE_COMMENT = ': keep-alive\n\n';

/** `id: <id>\nevent: message\ndata: <JSON>\n\n` (§5.5). */
export const messageFrame = (id: string, frame: string): string =>
  `id: ${id}\nevent: message\ndata: ${frame}\n\n`;

interface Buffered {
  id: string;
  text: string;
}

export class SseStream {
  private closed = false;
  /** Non-null while catch-up runs: live frames wait here. */
  private buffer: Buffered[] | null = null;
  private bufferedBytes = 0;
  private readonly timer: NodeJS.Timeout;
  /** When the stream opened, epoch ms (the Clients listing, `GET /api/clients`). */
  readonly openedAt = Date.now();

  constructor(
    readonly realm: string,
    readonly event: string,
    readonly ip: string,
    /** Who opened the stream, directly or through a ticket (Note 5-G). */
    readonly principal: HttpPrincipal,
    private readonly res: ServerResponse,
    keepAliveMs: number,
    /** Called once, when the stream ends for any reason. */
    private readonly onClose: (stream: SseStream, reason: string) => void,
  ) {
    this.timer = setInterval(() => {
      // A full buffer is not a failure (the bound is for messages); a dead socket is.
      if (this.res.destroyed || !this.res.writable) this.close('keep-alive write failed');
      else this.res.write(KEEPALIVE_COMMENT);
    }, keepAliveMs);
    this.timer.unref();
    res.on('close', () => this.close('closed by client'));
    res.on('error', () => this.close('response error'));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** A live message: written now, or buffered while catch-up runs; drops the stream past a bound. */
  deliver(id: string, frame: string): void {
    if (this.closed) return;
    const text = messageFrame(id, frame);
    if (this.buffer) {
      this.bufferedBytes += Buffer.byteLength(text);
      this.buffer.push({ id, text });
      if (
        this.buffer.length > SSE_REPLAY_MAX_MESSAGES ||
        this.bufferedBytes > SSE_MAX_PENDING_BYTES
      ) {
        this.close('live buffer over its bound during catch-up', true);
      }
      return;
    }
    // The unflushed bytes: what the response and its socket still hold.
    if (this.res.writableLength + Buffer.byteLength(text) > SSE_MAX_PENDING_BYTES) {
      this.close('slow reader: unflushed bytes over the bound', true);
      return;
    }
    this.write(text);
  }

  /**
   * Catch-up (§5.7 steps 1–8) from `resumeId` over `history` (oldest first). Live frames are
   * buffered meanwhile and flushed after, skipping ids just replayed. Resolves when the stream
   * is live (or closed).
   */
  async catchUp(
    resumeId: string,
    history: { rows: HistoryRow[]; overflowed: boolean },
  ): Promise<void> {
    this.buffer = [];
    this.bufferedBytes = 0;
    const { rows } = history;
    const at = rows.findIndex((r) => r.id === resumeId);
    let gap = at >= 0 ? rows.slice(at + 1) : rows;
    // A resume id no longer in a ring that overflowed: older rows are gone (step 6).
    let truncated = at < 0 && history.overflowed;
    if (gap.length > SSE_REPLAY_MAX_MESSAGES) {
      gap = gap.slice(gap.length - SSE_REPLAY_MAX_MESSAGES);
      truncated = true;
    }
    let bytes = 0;
    let first = gap.length;
    while (first > 0) {
      const size = Buffer.byteLength(gap[first - 1]!.frame);
      if (first < gap.length && bytes + size > SSE_REPLAY_MAX_BYTES) {
        truncated = true;
        break;
      }
      bytes += size;
      first--;
    }
    gap = gap.slice(first);
    if (truncated && !(await this.paced(TRUNCATED_COMMENT))) return;
    const replayed = new Set<string>();
    for (const row of gap) {
      replayed.add(row.id);
      if (!(await this.paced(messageFrame(row.id, row.frame)))) return;
    }
    // Go live: the buffered frames, paced too, while newer ones keep being buffered.
    while (this.buffer && this.buffer.length > 0) {
      const next = this.buffer.shift()!;
      this.bufferedBytes -= Buffer.byteLength(next.text);
      if (replayed.has(next.id)) continue;
      if (!(await this.paced(next.text))) return;
    }
    this.buffer = null;
  }

  /** Writes `text`, then waits for `drain` when the socket's buffer is full. False once closed. */
  private async paced(text: string): Promise<boolean> {
    if (this.closed) return false;
    if (this.write(text)) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
    return !this.closed;
  }

  /** Writes; true when the socket took it without buffering past its high-water mark. */
  write(text: string): boolean {
    if (this.closed || this.res.destroyed) return false;
    return this.res.write(text);
  }

  /**
   * Ends the stream once; `reason` is logged by the hub. `destroy`: the reader is not reading,
   * so the socket is destroyed instead of waiting for its buffer to flush.
   */
  close(reason: string, destroy = false): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = null;
    clearInterval(this.timer);
    if (destroy) this.res.destroy();
    else if (!this.res.destroyed) this.res.end();
    this.onClose(this, reason);
  }
}
