/**
 * A minimal socket.io v2 client (Engine.IO protocol v3) over a raw WebSocket, for the §1.1
 * requirement `allowEIO3: true` ("older Engine.IO v3 / socket.io v2 clients may connect").
 *
 * `socket.io-client` v4 cannot speak EIO=3 and no v2 client is installed, so this speaks the text
 * protocol directly: Engine.IO packets `0` open, `2`/`3` ping/pong (in v3 the *client* pings),
 * `4` message; socket.io packets inside a message: `0` connect, `2` event, `3` ack. A v4 server
 * connects an EIO3 client to `/` by itself and sends `40`. Only text (non-binary) packets.
 */
import WebSocket from 'ws';
import type { Listenable } from './wait';

type Listener = (...args: unknown[]) => void;

export class Eio3Client implements Listenable {
  /** Engine.IO session id; a v4 server uses it as the socket id of an EIO3 client. */
  sid = '';
  private readonly ws: WebSocket;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly acks = new Map<number, Listener>();
  private nextAckId = 0;
  private pingTimer: NodeJS.Timeout | null = null;

  private constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('message', (data) => this.onFrame(data.toString()));
  }

  /** Opens the connection and resolves once the server has sent `40` (connected to `/`). */
  static connect(port: number, timeoutMs = 5_000): Promise<Eio3Client> {
    const client = new Eio3Client(`ws://127.0.0.1:${port}/socket.io/?EIO=3&transport=websocket`);
    return new Promise<Eio3Client>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('EIO3 client did not connect')), timeoutMs);
      client.ws.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      client.ws.once('unexpected-response', (_req, res) => {
        clearTimeout(timer);
        reject(new Error(`EIO3 handshake refused with HTTP ${res.statusCode}`));
      });
      client.on('connect', () => {
        clearTimeout(timer);
        resolve(client);
      });
    });
  }

  get connected(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  on(event: string, listener: Listener): this {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  /** `42["event",...args]`, or `42<id>[...]` when the last argument is a function (an ack). */
  emit(event: string, ...args: unknown[]): void {
    const last = args[args.length - 1];
    let id = '';
    if (typeof last === 'function') {
      args.pop();
      const ackId = this.nextAckId++;
      this.acks.set(ackId, last as Listener);
      id = String(ackId);
    }
    this.ws.send(`42${id}${JSON.stringify([event, ...args])}`);
  }

  /** Emits with an ack and resolves with the first ack argument. */
  emitWithAck(event: string, payload: unknown, timeoutMs = 5_000): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), timeoutMs);
      this.emit(event, payload, (reply: unknown) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  }

  close(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.ws.close();
  }

  private fire(event: string, args: unknown[]): void {
    for (const l of [...(this.listeners.get(event) ?? [])]) l(...args);
  }

  private onFrame(frame: string): void {
    const type = frame[0];
    if (type === '0') {
      const open = JSON.parse(frame.slice(1)) as { sid: string; pingInterval: number };
      this.sid = open.sid;
      this.pingTimer = setInterval(() => this.ws.send('2'), open.pingInterval);
      this.pingTimer.unref();
      return;
    }
    if (type !== '4') return; // '3' pong and the rest need no handling here
    const packet = frame.slice(1);
    const kind = packet[0];
    if (kind === '0') {
      this.fire('connect', []);
      return;
    }
    if (kind === '1') {
      this.fire('disconnect', ['io server disconnect']);
      return;
    }
    const bracket = packet.indexOf('[');
    if (bracket < 0) return;
    const idText = packet.slice(1, bracket);
    const data = JSON.parse(packet.slice(bracket)) as unknown[];
    if (kind === '2') {
      const [event, ...args] = data as [string, ...unknown[]];
      this.fire(event, args);
    } else if (kind === '3') {
      const ack = this.acks.get(Number(idText));
      this.acks.delete(Number(idText));
      ack?.(...data);
    }
  }
}
