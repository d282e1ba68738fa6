/**
 * One socket.io connection to any tyo-mq-protocol broker, sending signed admin events with an
 * ack (`spec/protocol-admin.md` §1: the reference clients do the same, one socket per call).
 */
import { io, type Socket } from 'socket.io-client';
import { SignedAction, type SignedActionName } from '../../shared/admin-signature';
import { ClientEvent } from '../../shared/protocol-events';
import { signEnvelope } from '../auth/proof';

export type Reply = { ok: boolean; code?: number; message?: string } & Record<string, unknown>;

/** The connection failed or the broker did not answer in time (exit code 3). */
export class ConnectionError extends Error {}

export class AdminConnection {
  private constructor(
    private readonly socket: Socket,
    private readonly timeoutMs: number,
  ) {}

  /** @throws ConnectionError when the broker cannot be reached within `timeoutMs`. */
  static async open(url: string, timeoutMs: number): Promise<AdminConnection> {
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ConnectionError(`no connection to ${url} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('connect_error', (err: Error) => {
        clearTimeout(timer);
        reject(new ConnectionError(`cannot connect to ${url}: ${err.message}`));
      });
    });
    return new AdminConnection(socket, timeoutMs);
  }

  /**
   * Emits `event` with `payload` and resolves with the ack's reply.
   * @throws ConnectionError when no answer comes within `timeoutMs`, or, saying so, when the
   *   connection drops first (a killed broker is not reported as a slow one).
   */
  async emit(event: string, payload: unknown, timeoutMs = this.timeoutMs): Promise<Reply> {
    if (!this.socket.connected) {
      throw new ConnectionError(`connection to the broker lost before ${event}`);
    }
    let onDisconnect: (reason: string) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => {
      onDisconnect = (reason) =>
        reject(new ConnectionError(`connection to the broker lost (${reason}) during ${event}`));
      this.socket.once('disconnect', onDisconnect);
    });
    const answered = this.socket
      .timeout(timeoutMs)
      .emitWithAck(event, payload)
      .catch(() => {
        throw new ConnectionError(`no answer to ${event} within ${timeoutMs} ms`);
      }) as Promise<Reply | null>;
    // When the connection is lost first, the ack's later timeout must not go unhandled.
    answered.catch(() => undefined);
    try {
      const reply = await Promise.race([answered, lost]);
      return reply ?? { ok: false, code: 500, message: 'empty reply' };
    } finally {
      this.socket.off('disconnect', onDisconnect);
    }
  }

  /** Signs `body` for `action` with `secret` (fresh nonce, now) and sends it. */
  signed(
    action: SignedActionName,
    secret: string,
    body: Record<string, unknown>,
    timeoutMs?: number,
  ) {
    return this.emit(action, signEnvelope(secret, action, body), timeoutMs);
  }

  command(secret: string, body: Record<string, unknown>, timeoutMs?: number) {
    return this.signed(SignedAction.AUTH_MANAGEMENT_COMMAND, secret, body, timeoutMs);
  }

  /** `AUTHORIZATION_REQUEST` is unsigned by design (§7.1). */
  request(payload: Record<string, unknown>) {
    return this.emit(ClientEvent.AUTHORIZATION_REQUEST, payload);
  }

  close(): void {
    this.socket.close();
  }
}
