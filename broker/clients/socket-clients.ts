/**
 * The socket.io side of the client records (client-history.ts, issue 27): one record per `/`
 * socket, fed by the connection lifecycle, admission, the auth failures, the rate limits and the
 * back-pressure drops. Counters: `messages_*` are socket.io events (acks excluded), `bytes_*` the
 * engine.io `message` payloads (heartbeats and handshakes excluded), both directions.
 */
import { ClientEventKind } from '../../shared/client-detail';
import type { SessionCredential } from '../auth/session-credential';
import type { BrokerSocket } from '../transport/socket-types';
import type { ClientHistory, ClientRecord } from './client-history';

/** What admitted a socket, as `client_detail` names it (never the secret). */
export function admittedBy(via: string, credential: SessionCredential | null): string {
  if (via === 'static') return 'token';
  if (credential?.kind === 'realm-key') return 'key';
  return via;
}

/** Bytes of an engine.io packet's data (string: UTF-8 length). */
function dataBytes(data: unknown): number {
  if (typeof data === 'string') return Buffer.byteLength(data);
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

interface EnginePacket {
  type: string;
  data?: unknown;
}

export class SocketClients {
  private readonly records = new WeakMap<BrokerSocket, ClientRecord>();

  constructor(readonly history: ClientHistory) {}

  /** Starts the record of a connected socket at `ip` (limits.clientIp, trust_proxy applied). */
  opened(socket: BrokerSocket, ip: string): void {
    const conn = socket.conn;
    const record = this.history.open({
      protocol: 'socket.io',
      clientId: socket.id,
      transport: conn.transport.name,
      realm: socket.data.realm,
      ip,
      names: () => [...socket.data.producers, ...socket.data.consumers],
      close: () => socket.disconnect(true),
    });
    this.records.set(socket, record);
    conn.on('upgrade', (transport: { name: string }) => {
      record.transport = transport.name;
      this.history.event(record, ClientEventKind.UPGRADE, transport.name);
    });
    conn.on('packet', (p: EnginePacket) => {
      if (p.type === 'message') record.bytesIn += dataBytes(p.data);
    });
    conn.on('packetCreate', (p: EnginePacket) => {
      if (p.type === 'message') record.bytesOut += dataBytes(p.data);
    });
    socket.onAny(() => {
      record.messagesIn++;
    });
    socket.onAnyOutgoing(() => {
      record.messagesOut++;
    });
    // A `close_client` already said why; socket.io's own reason would only say "server".
    socket.on('disconnect', (reason) => this.history.ended(record, record.closeReason ?? reason));
  }

  /** The record of `socket`, undefined before `opened` (a connection refused by a limit). */
  of(socket: BrokerSocket): ClientRecord | undefined {
    return this.records.get(socket);
  }

  /** The socket was admitted with its `socket.data` grant; `via` as the admission names it. */
  admitted(socket: BrokerSocket, via: string): void {
    const record = this.records.get(socket);
    if (!record) return;
    const { realm, role, credential } = socket.data;
    this.history.admitted(record, realm, role, admittedBy(via, credential));
  }

  /** `AUTH_FAIL` (or an implicit admission refused) with its message. */
  authFailed(socket: BrokerSocket, message: string): void {
    const record = this.records.get(socket);
    if (record) this.history.event(record, ClientEventKind.AUTH_FAIL, message);
  }

  /** An action refused by limit `reason` (§11.3 key). */
  rateLimited(socket: BrokerSocket, reason: string): void {
    const record = this.records.get(socket);
    if (record) this.history.event(record, ClientEventKind.RATE_LIMITED, reason);
  }

  /** A plain copy dropped for this slow consumer (back-pressure). */
  dropped(socket: BrokerSocket): void {
    const record = this.records.get(socket);
    if (record) this.history.event(record, ClientEventKind.DROPPED, 'slow consumer');
  }
}
