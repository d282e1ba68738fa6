/**
 * Runs `test/support/python/tyo_consumer.py`: a tyo-mq-style consumer on Debian's
 * python3-socketio with its default options (reconnection on, polling then a WebSocket upgrade
 * whose websocket-client sends `Origin: http://<host:port>`). It runs under the Debian
 * interpreter, `/usr/bin/python3`, which has the packages (`python3` on PATH may be a pyenv one
 * without them). A missing package is a test failure with the package named, never a skip.
 *
 * The client prints JSON lines (`connected`, `ready`, `message`, `disconnected`, `fatal`); this
 * wrapper keeps them in order and waits for the next one matching a predicate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WAIT_MS } from '../helpers/wait';

const SCRIPT = fileURLToPath(new URL('./python/tyo_consumer.py', import.meta.url));
/** The Debian interpreter: python3-socketio, -engineio, -websocket and -requests live there. */
export const DEBIAN_PYTHON = '/usr/bin/python3';

export type PyLine =
  | { type: 'connected'; sid: string; transport: string | null }
  | { type: 'ready'; transport: string | null }
  | { type: 'message'; event: string; data: unknown; transport: string | null }
  | { type: 'disconnected' }
  | { type: 'fatal'; message: string };

export interface PyConsumerConfig {
  url: string;
  /** Emitted on every 'connect', in order (identify, then replay subscriptions). */
  onConnect: [event: string, payload: unknown][];
  /** Emitted with an ack after `onConnect`; the ack prints a `ready` line (a barrier). */
  ready?: [event: string, payload: unknown];
  /** Events whose arrival prints a `message` line. */
  listen: string[];
  /**
   * Omitted: python-socketio's default (polling, then the WebSocket upgrade). `['websocket']`:
   * WebSocket from the start, as the tyo-mq Python client connects — the handshake itself then
   * carries websocket-client's `Origin: http://<host:port>`.
   */
  transports?: ['websocket'];
}

export interface PyConsumer {
  readonly child: ChildProcess;
  /** Every line printed so far. */
  readonly lines: PyLine[];
  /**
   * Resolves with the first line matching `predicate` at index `from` or later (default: the
   * next line not yet returned by a previous `next`); rejects on timeout, `fatal` or exit.
   */
  next<T extends PyLine['type']>(
    type: T,
    predicate?: (line: Extract<PyLine, { type: T }>) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<PyLine, { type: T }>>;
  stderr(): string;
  /** Closes stdin (the client disconnects and exits); SIGKILL after 3 s. Idempotent. */
  close(): Promise<void>;
}

export function startPyConsumer(config: PyConsumerConfig): PyConsumer {
  const child = spawn(
    DEBIAN_PYTHON,
    [
      SCRIPT,
      JSON.stringify({
        url: config.url,
        on_connect: config.onConnect,
        ready: config.ready ?? null,
        listen: config.listen,
        transports: config.transports ?? null,
      }),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } },
  );
  const lines: PyLine[] = [];
  const events = new EventEmitter();
  let stderr = '';
  let exitCode: number | null | undefined;
  let spawnError: Error | null = null;
  let cursor = 0;
  let buffer = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout?.on('data', (d: Buffer) => {
    buffer += d.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!text) continue;
      try {
        lines.push(JSON.parse(text) as PyLine);
      } catch {
        stderr += `[unparsable stdout] ${text}\n`;
        continue;
      }
      events.emit('line');
    }
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      exitCode = code;
      events.emit('line');
      resolve(code);
    });
  });
  child.once('error', (err) => {
    spawnError = err;
    exitCode = null;
    events.emit('line');
  });
  // Closing stdin is how the client is told to leave; a dead pipe must not throw here.
  child.stdin?.on('error', () => undefined);

  const summary = (): string =>
    `python client lines: ${JSON.stringify(lines).slice(0, 1_500)}; stderr: ${stderr.slice(-1_500)}`;

  return {
    child,
    lines,
    stderr: () => stderr,
    next(type, predicate, timeoutMs = DEFAULT_WAIT_MS) {
      type L = Extract<PyLine, { type: typeof type }>;
      return new Promise<L>((resolve, reject) => {
        const check = (): void => {
          for (let i = cursor; i < lines.length; i++) {
            const line = lines[i]!;
            if (line.type === 'fatal') {
              finish();
              reject(new Error(`python client failed: ${line.message}; ${summary()}`));
              return;
            }
            if (line.type === type && (!predicate || predicate(line as L))) {
              cursor = i + 1;
              finish();
              resolve(line as L);
              return;
            }
          }
          if (spawnError) {
            finish();
            reject(new Error(`cannot run ${DEBIAN_PYTHON}: ${spawnError.message}`));
          } else if (exitCode !== undefined) {
            finish();
            reject(
              new Error(`python client exited with ${exitCode} before "${type}"; ${summary()}`),
            );
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for "${type}"; ${summary()}`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          events.off('line', check);
        };
        events.on('line', check);
        check();
      });
    },
    async close() {
      if (exitCode !== undefined) return;
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
