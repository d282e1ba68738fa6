/**
 * The MQTT side of the client records (client-history.ts, issue 27): a connection is noted when
 * the listener accepts it (transport, address), gets its record at CONNECT (the client id and
 * username are known then; realm = the username's, as mqtt-auth.ts reads it, until admitted),
 * and is ended when its stream closes, whether it was admitted or refused.
 *
 * Counters: `messages_in` = PUBLISH packets from the client (aedes `publish` with a client),
 * `messages_out` = PUBLISH packets written to it (a rewrite of packet-writes.ts that changes
 * nothing), bytes = the TCP socket's own `bytesRead`/`bytesWritten` (for WebSocket, the
 * upgraded socket's, so WebSocket framing is included).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Aedes, Client } from 'aedes';
import { Protocol } from '../../shared/protocol-events';
import { ClientEventKind } from '../../shared/client-detail';
import type { LimitsService } from '../limits/limits-service';
import type { MqttIdentity } from '../mqtt/mqtt-identity';
import { addPacketRewrite } from '../mqtt/packet-writes';
import type { ClientHistory, ClientRecord } from './client-history';

/** MQTT 5 DISCONNECT 0x98 "Administrative action" (OASIS MQTT 5.0 §3.14.2.1). */
export const ADMINISTRATIVE_ACTION = 0x98;

/** Records by the stream aedes writes to (one process-wide rewrite serves every listener). */
const byStream = new WeakMap<object, ClientRecord>();
addPacketRewrite((packet, stream) => {
  if (packet.cmd === 'publish') {
    const record = byStream.get(stream);
    if (record) record.messagesOut++;
  }
  return packet;
});

interface Pending {
  transport: string;
  ip: string;
  raw: Partial<Socket>;
  conn: NodeJS.EventEmitter;
  record: ClientRecord | null;
}

/** What admitted an MQTT client, as `client_detail` names it. */
function admittedBy(identity: MqttIdentity): string {
  const kind = identity.credential?.kind;
  if (kind === 'realm-key') return 'key';
  if (identity.tokenHash !== null) return 'token';
  if (kind) return kind;
  return identity.authenticated ? 'credential' : 'anonymous';
}

export class MqttClientRecords {
  private readonly pending = new WeakMap<Client, Pending>();

  constructor(
    readonly history: ClientHistory,
    private readonly limits?: LimitsService,
  ) {}

  /** Counts the client's own PUBLISH packets; call once per aedes instance. */
  attach(aedes: Aedes): void {
    aedes.on('publish', (_packet, client) => {
      const record = client ? this.pending.get(client)?.record : undefined;
      if (record) record.messagesIn++;
    });
    aedes.on('clientError', (client, err) => {
      const p = this.pending.get(client);
      // The first cause stands (a refusal or a `close_client` said why before the error).
      if (p?.record && p.record.closedAt === null) p.record.closeReason ??= err.message;
    });
  }

  /** A connection the listener handed to aedes (`transport`: tcp, tls or ws). */
  accepted(
    client: Client,
    conn: NodeJS.EventEmitter,
    req: IncomingMessage | undefined,
    transport: string,
  ): void {
    const raw = (req?.socket ?? conn) as Partial<Socket>;
    let ip = raw.remoteAddress ?? 'unknown';
    if (req && this.limits) ip = this.limits.requestIp(req);
    const entry: Pending = { transport, ip, raw, conn, record: null };
    this.pending.set(client, entry);
    conn.once('close', () => {
      const record = entry.record;
      if (record) this.history.ended(record, record.closeReason ?? 'connection closed');
    });
  }

  /** CONNECT arrived (before authentication): the record starts. */
  connecting(client: Client, username: string | undefined): void {
    const p = this.pending.get(client);
    if (!p || p.record) return;
    const raw = p.raw;
    p.record = this.history.open({
      protocol: 'mqtt',
      clientId: client.id,
      transport: p.transport,
      realm: username || Protocol.DEFAULT_REALM,
      ip: p.ip,
      username: username ?? null,
      // The socket's own totals, the CONNECT included.
      liveBytes: () => ({ in: raw.bytesRead ?? 0, out: raw.bytesWritten ?? 0 }),
      close: () => {
        if (client.version === 5) {
          client.disconnect({
            reasonCode: ADMINISTRATIVE_ACTION,
            properties: { reasonString: 'closed by a manager' },
          });
        } else client.close();
      },
    });
    p.record.protocolVersion = client.version ?? 4;
    byStream.set(p.conn, p.record);
  }

  /** The authentication decided: admitted with `identity`, or refused with `reason`. */
  decided(client: Client, identity: MqttIdentity | undefined, reason: string | null): void {
    const record = this.pending.get(client)?.record;
    if (!record) return;
    if (identity && reason === null) {
      this.history.admitted(record, identity.realm, identity.role, admittedBy(identity));
      return;
    }
    const why = reason ?? 'Authentication failed';
    const limited = why.startsWith('rate limited: ');
    this.history.event(
      record,
      limited ? ClientEventKind.RATE_LIMITED : ClientEventKind.AUTH_FAIL,
      limited ? why.slice('rate limited: '.length) : why,
    );
    record.closeReason = limited ? 'refused by a connection limit' : 'authentication failed';
  }
}
