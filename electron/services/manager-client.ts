/**
 * ManagerClient: one long-lived socket.io connection to a tyo-mq-protocol broker, sending
 * signed manager events (`AUTHORIZATION_NEXT`, `AUTHORIZATION_DECIDE`, `AUTH_MANAGEMENT_COMMAND`)
 * with an ack and a timeout, reconnecting on its own.
 *
 * Source: `spec/protocol-admin.md` §6 (signed envelope; the proof-gated events need no
 * authenticated socket), §7.2–§7.3, §8; ARCHITECTURE §1 (ManagerClient ×N). The signing secret
 * stays in this process; errors never carry it.
 */
import { io, type Socket } from 'socket.io-client';
import { signEnvelope } from '../../broker/index';
import {
  SignedAction,
  type SignedActionName,
  type SignedEnvelope,
} from '../../shared/admin-signature';
import { SwitchboardError, type ErrorCode } from '../../shared/error-catalogue';
import { parseBrokerUrl, type EndpointTls } from './broker-endpoint';

/** A broker's ack: `{ok: true, …}` or `{ok: false, code, message}` (§1). */
export type ManagerReply = { ok: boolean; code?: number; message?: string } & Record<
  string,
  unknown
>;

export interface ManagerClientOptions {
  /** Broker URL, e.g. `http://127.0.0.1:17352` (a base path is kept as socket.io `path`). */
  url: string;
  /** Signing secret: the global admin token or a realm manager key. */
  secret: string;
  /** Per-call timeout in ms (connecting included). Default 5000. */
  timeoutMs?: number;
  /** For https/wss brokers: extra CA (PEM text) and certificate checking (default on). */
  tls?: EndpointTls;
}

export class ManagerClient {
  private readonly socket: Socket;
  private readonly timeoutMs: number;
  private lastConnectError: string | null = null;
  private closed = false;

  constructor(private readonly options: ManagerClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 5_000;
    const endpoint = parseBrokerUrl(options.url);
    this.socket = io(endpoint.origin, {
      path: endpoint.socketPath,
      transports: ['websocket'],
      forceNew: true,
      reconnection: true,
      reconnectionDelay: 250,
      reconnectionDelayMax: 5_000,
      timeout: this.timeoutMs,
      ...(options.tls
        ? {
            ...(options.tls.ca ? { ca: options.tls.ca } : {}),
            rejectUnauthorized: options.tls.rejectUnauthorized,
          }
        : {}),
    });
    this.socket.on('connect_error', (error) => {
      this.lastConnectError = error.message;
    });
    this.socket.on('connect', () => {
      this.lastConnectError = null;
    });
    // socket.io-client does not reconnect after a server-side disconnect on its own (a broker
    // restarting its namespaces, a limit enforced): a manager must come back by itself.
    this.socket.on('disconnect', (reason) => {
      if (reason === 'io server disconnect' && !this.closed) this.socket.connect();
    });
  }

  /**
   * Resolves once the socket is connected (at once when it is).
   * @throws SwitchboardError `SWB_ERR_BROKER_UNREACHABLE` after `timeoutMs`, with the last
   *   connection error (refused, TLS, 403 from a Host/Origin guard…).
   */
  async waitConnected(timeoutMs = this.timeoutMs): Promise<void> {
    if (this.socket.connected) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.socket.off('connect', onConnect);
        reject(
          new SwitchboardError(
            'SWB_ERR_BROKER_UNREACHABLE',
            `Cannot open a socket.io connection to ${this.options.url} within ${timeoutMs} ms` +
              (this.lastConnectError ? `: ${this.lastConnectError}` : ''),
          ),
        );
      }, timeoutMs);
      const onConnect = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.socket.once('connect', onConnect);
    });
  }

  /** The URL this client talks to. */
  get url(): string {
    return this.options.url;
  }

  /** Whether the socket is connected right now. */
  connected(): boolean {
    return this.socket.connected;
  }

  /** The oldest pending authorization request matching `realm` (§7.2), or null. */
  async next(realm?: string): Promise<Record<string, unknown> | null> {
    const reply = await this.signed(SignedAction.AUTHORIZATION_NEXT, realm ? { realm } : {});
    return (reply.request as Record<string, unknown> | null | undefined) ?? null;
  }

  /** Approves or rejects request `id` (§7.3); resolves with the decided public request. */
  async decide(
    id: string,
    approved: boolean,
    role?: string,
    reason?: string,
  ): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = { request_id: id, approved };
    if (role) body.role = role;
    if (reason) body.reason = reason;
    const reply = await this.signed(SignedAction.AUTHORIZATION_DECIDE, body);
    return reply.request as Record<string, unknown>;
  }

  /** Sends management command `body` (`{command, …}`, §8.2); resolves with the `ok` reply. */
  command(body: { command: string } & Record<string, unknown>): Promise<ManagerReply> {
    return this.signed(SignedAction.AUTH_MANAGEMENT_COMMAND, body);
  }

  /**
   * Signs management command `body` now (fresh nonce) without sending it: the Command console
   * shows it (masked) before `sendSigned` sends exactly it. Single use: the broker claims the nonce.
   */
  signCommand(body: { command: string } & Record<string, unknown>): SignedEnvelope {
    return signEnvelope(this.options.secret, SignedAction.AUTH_MANAGEMENT_COMMAND, body);
  }

  /**
   * Sends an envelope of `signCommand` and resolves with the broker's reply as it came, a
   * refusal (`ok: false`) included.
   * @throws SwitchboardError `SWB_ERR_BROKER_UNREACHABLE` (no answer within the timeout),
   *   `SWB_ERR_INTERNAL` (an empty reply).
   */
  async sendSigned(envelope: SignedEnvelope): Promise<ManagerReply> {
    const action = SignedAction.AUTH_MANAGEMENT_COMMAND;
    let reply: ManagerReply | null;
    try {
      reply = (await this.socket
        .timeout(this.timeoutMs)
        .emitWithAck(action, envelope)) as ManagerReply;
    } catch {
      throw new SwitchboardError(
        'SWB_ERR_BROKER_UNREACHABLE',
        `No answer from ${this.options.url} to ${action} within ${this.timeoutMs} ms`,
      );
    }
    if (!reply || typeof reply !== 'object') {
      throw new SwitchboardError('SWB_ERR_INTERNAL', `Empty reply to ${action}`);
    }
    return reply;
  }

  /**
   * Reconnects at once when the socket is down, instead of waiting out socket.io's backoff (up
   * to 5 s): called when the local broker reports `running` again, so the next call does not time out.
   */
  reconnectNow(): void {
    if (this.socket.connected || this.closed) return;
    this.socket.disconnect();
    this.socket.connect();
  }

  /** Closes the socket; pending calls fail with `SWB_ERR_BROKER_UNREACHABLE`. */
  close(): void {
    this.closed = true;
    this.socket.close();
  }

  /**
   * Signs `body` (fresh nonce, now) and emits it with an ack.
   * @throws SwitchboardError `SWB_ERR_BROKER_UNREACHABLE` (no answer within the timeout), or the
   *   broker's refusal mapped by `brokerError`.
   */
  private async signed(action: SignedActionName, body: object): Promise<ManagerReply> {
    let reply: ManagerReply | null;
    try {
      reply = (await this.socket
        .timeout(this.timeoutMs)
        .emitWithAck(action, signEnvelope(this.options.secret, action, body))) as ManagerReply;
    } catch {
      throw new SwitchboardError(
        'SWB_ERR_BROKER_UNREACHABLE',
        `No answer from ${this.options.url} to ${action} within ${this.timeoutMs} ms`,
      );
    }
    if (!reply || typeof reply !== 'object') {
      throw new SwitchboardError('SWB_ERR_INTERNAL', `Empty reply to ${action}`);
    }
    if (!reply.ok) throw brokerError(action, reply);
    return reply;
  }
}

/** Console error code of each broker refusal status (`spec/protocol-admin.md` §1: HTTP-ish codes); others → internal. */
const REFUSAL_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'SWB_ERR_VALIDATION',
  401: 'SWB_ERR_UNAUTHORIZED',
  403: 'SWB_ERR_UNAUTHORIZED',
  404: 'SWB_ERR_NOT_FOUND',
  409: 'SWB_ERR_CONFLICT',
  429: 'SWB_ERR_RATE_LIMITED',
};

/** Maps a broker refusal (`{ok:false, code, message}`) onto the console's error catalogue. */
export function brokerError(action: string, reply: ManagerReply): SwitchboardError {
  const status = typeof reply.code === 'number' ? reply.code : 500;
  const message = `Broker refused ${action} (${status}): ${String(reply.message ?? 'no reason given')}`;
  return new SwitchboardError(REFUSAL_CODES[status] ?? 'SWB_ERR_INTERNAL', message);
}
