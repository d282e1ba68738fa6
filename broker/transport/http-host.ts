/**
 * The HTTP servers the broker serves on: its own (`listen`) or a host application's
 * (`attach`), and how each is let go on `close()`.
 *
 * - `listen`: one server at a time. A second `listen()` — even while the first is still
 *   binding — is refused at once and creates nothing (issue 8 item 12: two concurrent calls
 *   used to both succeed and leak a server holding its port). A failed bind leaves nothing
 *   behind either. Unhandled requests get a bare 403 (`spec/protocol-admin.md` §10.1).
 * - `attach`: socket.io and the HTTP API join the host's server; only our paths are answered.
 *   `detach()` removes every listener the broker (and socket.io's engine) added and gives the
 *   host back its own `request` listeners, so after `close()` polling clients and `/api/stats`
 *   get the host's answers, not ours (issue 8 item 11).
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { SwitchboardError } from '../../shared/error-catalogue';
import { PortInUseError } from '../../shared/port-in-use-error';
import type { BrokerServer } from './socket-types';

type HttpHandler = (req: IncomingMessage, res: ServerResponse) => boolean;
/** An engine.io middleware (`engine.use`): runs for every request and upgrade of socket.io. */
type EngineMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: Error) => void,
) => void;
type Listener = (...args: unknown[]) => void;

/** Server events socket.io's engine (and we) listen to on an attached server. */
const ATTACH_EVENTS = ['request', 'upgrade', 'close', 'listening'] as const;

/** Our own HTTP server, once bound. */
export interface OwnServer {
  readonly port: number;
  /** Stops accepting new TCP connections; open ones (and their sessions) go on. */
  stopAccepting(): void;
  /**
   * Closes socket.io and the server; drops connections that linger (half-open peers). Sends no
   * socket.io DISCONNECT packet, so stock clients reconnect (close transports first with
   * `closeTransports` to flush what they were owed).
   */
  close(): Promise<void>;
}

export class HttpHost {
  private state: 'idle' | 'binding' | 'bound' = 'idle';
  private detachFn: (() => void) | null = null;

  constructor(
    private readonly io: BrokerServer,
    private readonly httpApi: HttpHandler,
    private readonly forbidden: (res: ServerResponse) => void,
    /** The request policy, installed on every engine this host attaches (issue 19). */
    private readonly engineMiddleware?: EngineMiddleware,
  ) {}

  private useMiddleware(): void {
    if (this.engineMiddleware) this.io.engine.use(this.engineMiddleware);
  }

  /**
   * Binds a new server on `port`/`host`.
   * @throws SwitchboardError `SWB_ERR_INTERNAL` when already listening or binding,
   *   `SWB_ERR_PORT_IN_USE` when the port is taken; other bind errors as Node raises them.
   */
  async listen(port: number, host: string): Promise<OwnServer> {
    if (this.state !== 'idle') {
      throw new SwitchboardError('SWB_ERR_INTERNAL', 'Broker is already listening');
    }
    this.state = 'binding';
    const server = createServer((req, res) => {
      if (!this.httpApi(req, res)) this.forbidden(res);
    });
    const rawSockets = new Set<Socket>();
    server.on('connection', (sock) => {
      rawSockets.add(sock);
      sock.once('close', () => rawSockets.delete(sock));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException) => {
          server.off('listening', onListening);
          reject(
            err.code === 'EADDRINUSE'
              ? new PortInUseError('socketio', port, `Port ${port} is already in use`)
              : err,
          );
        };
        const onListening = () => {
          server.off('error', onError);
          resolve();
        };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen(port, host);
      });
    } catch (err) {
      this.state = 'idle';
      throw err;
    }
    // Attached only once bound: a failed bind leaves socket.io untouched.
    this.io.attach(server);
    this.useMiddleware();
    this.state = 'bound';
    return {
      port: (server.address() as AddressInfo).port,
      stopAccepting: () => {
        if (server.listening) server.close();
      },
      close: async () => {
        // A silent (half-open) peer would hold a WebSocket close handshake for 30 s, so the
        // connections are dropped instead; a client sees its transport close and reconnects.
        setImmediate(() => {
          for (const sock of rawSockets) sock.destroy();
        });
        await new Promise<void>((resolve) => this.io.close(() => resolve()));
        this.state = 'idle';
      },
    };
  }

  /** Serves socket.io and the HTTP API on `server` (a host application's). */
  attach(server: HttpServer): void {
    const before = new Map(ATTACH_EVENTS.map((e) => [e, server.listeners(e) as Listener[]]));
    this.io.attach(server);
    this.useMiddleware();
    // Like socket.io itself: take over 'request' and pass on what is not ours.
    const previous = server.listeners('request') as Listener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/socket.io/') || !this.httpApi(req, res)) {
        for (const listener of previous) listener.call(server, req, res);
      }
    });
    const added = new Map(
      ATTACH_EVENTS.map((e) => [
        e,
        (server.listeners(e) as Listener[]).filter((l) => !before.get(e)!.includes(l)),
      ]),
    );
    const detachPrevious = this.detachFn;
    this.detachFn = () => {
      detachPrevious?.();
      for (const e of ATTACH_EVENTS) {
        for (const l of added.get(e)!) server.off(e, l);
      }
      // The host's own request listeners were unhooked by the engine: put them back first.
      const original = before.get('request')!;
      for (let i = original.length - 1; i >= 0; i--) {
        if (!server.listeners('request').includes(original[i]!)) {
          server.prependListener('request', original[i]!);
        }
      }
    };
  }

  /** Undoes every `attach()`; idempotent. */
  detach(): void {
    this.detachFn?.();
    this.detachFn = null;
  }
}
