/**
 * A small Server-Sent Events reader over `http.get` (no `eventsource` package in the tree):
 * parses `id:` / `event:` / `data:` frames and `:` comments as they arrive, in order. Every
 * reader opened here is closed by the harness' close (registered with `onClose`).
 */
import { get, type IncomingMessage } from 'node:http';
import type { Harness } from './broker-harness';
import { waitUntil } from './wait';

export interface SseFrame {
  id: string | undefined;
  event: string | undefined;
  /** The `data:` JSON, parsed. */
  data: unknown;
}

export interface SseReader {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** The body of a refused (non-200) response. */
  readonly body: string;
  readonly frames: SseFrame[];
  readonly comments: string[];
  /** Resolves once `n` frames have arrived. */
  waitFrames(n: number, timeoutMs?: number): Promise<SseFrame[]>;
  /** True once the server ended or cut the stream. */
  readonly ended: boolean;
  /** Stops reading (the socket's buffers fill, the broker sees back-pressure). */
  pause(): void;
  resume(): void;
  close(): void;
}

/** Opens `GET path` on the harness broker with `headers`; resolves when the headers arrive. */
export function openSse(
  h: Harness,
  path: string,
  headers: Record<string, string> = {},
): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port: h.port, path, headers }, (res) => {
      const frames: SseFrame[] = [];
      const comments: string[] = [];
      let text = '';
      let body = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) {
          body += chunk;
          return;
        }
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const frame: SseFrame = { id: undefined, event: undefined, data: undefined };
          let isFrame = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('event: ')) frame.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              frame.data = JSON.parse(line.slice(6)) as unknown;
              isFrame = true;
            }
          }
          if (isFrame) frames.push(frame);
        }
      });
      const done = () => {
        ended = true;
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
      const reader: SseReader = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get body() {
          return body;
        },
        frames,
        comments,
        async waitFrames(n, timeoutMs) {
          await waitUntil(
            () => frames.length >= n,
            `${n} SSE frames (have ${frames.length})`,
            timeoutMs,
          );
          return frames.slice(0, n);
        },
        get ended() {
          return ended;
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      };
      h.onClose(() => void req.destroy());
      resolve(reader);
    });
    req.on('error', reject);
  });
}
