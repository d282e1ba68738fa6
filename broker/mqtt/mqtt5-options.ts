/**
 * MQTT 5 limits and session hygiene for the aedes instance (issue 14; OASIS MQTT 5.0 §3.1.2.11,
 * §3.2.2.3). The `mqtt` settings (mqtt-schema.ts) become the CONNACK properties aedes advertises
 * and enforces:
 *   - Maximum Packet Size = `max_packet_size` as a whole packet (fixed header included), so an
 *     MQTT 5 client never sends what packet-guard.ts would refuse; aedes answers a connected
 *     MQTT 5 client that does with DISCONNECT 0x95 "Packet too large";
 *   - Receive Maximum = `max_inflight_inbound` (what bounded-persistence.ts enforces);
 *   - Session Expiry Interval clamped to `session_expiry_max`, at most `pending_sessions_max`
 *     sessions or delayed wills waiting at once (aedes' guards against identity cycling);
 *   - Topic Alias Maximum = `topic_alias_max`.
 */
import type { Aedes, AedesOptions, Client } from 'aedes';
import type { Logger } from '../logging/logger';
import type { MqttSettings } from './mqtt-schema';

/** Bytes of a whole packet whose remaining length is `remaining` (MQTT 5.0 §2.1.4). */
export function wireSize(remaining: number): number {
  const lengthBytes = remaining < 128 ? 1 : remaining < 16_384 ? 2 : remaining < 2_097_152 ? 3 : 4;
  return 1 + lengthBytes + remaining;
}

/** The aedes options that carry the `mqtt` settings' MQTT 5 limits. */
export function mqtt5Options(settings: MqttSettings): Partial<AedesOptions> {
  return {
    maximumPacketSize: wireSize(settings.max_packet_size),
    receiveMaximum: settings.max_inflight_inbound,
    sessionExpiryIntervalLimit: settings.session_expiry_max,
    pendingSessionsLimit: settings.pending_sessions_max,
    topicAliasMaximum: settings.topic_alias_max,
  };
}

/** The persistence method aedes 1.2 calls and the MQTT 5 line (2.0.0-beta.1) does not. */
interface CleansIncoming {
  cleanIncoming(client: Client): Promise<void>;
}

/** Connections whose CONNECT asked for a clean start (3.1.1 Clean Session, 5.0 Clean Start). */
const cleanStarts = new WeakSet<object>();

/**
 * Remembers whether `client`'s CONNECT asked for a clean start: in MQTT 5 `client.clean` says
 * whether the session outlives the connection (Session Expiry), not whether it started anew.
 */
export function watchCleanStart(client: Client): void {
  const parser = (client as unknown as { _parser: NodeJS.EventEmitter })._parser;
  parser.prependListener('packet', (packet: { cmd: string; clean?: boolean }) => {
    if (packet.cmd === 'connect' && packet.clean) cleanStarts.add(client);
  });
}

/**
 * Discards a session's QoS 2 receipts when it starts clean and when a clean session ends
 * ([MQTT-3.1.2-6], [MQTT-3.1.2-4]; GHSA-p8r9-qf8w-p73r). Without it a client that publishes
 * QoS 2 and never sends PUBREL leaves receipts behind for ever, and a new session reusing a
 * message id would have its new message taken for a duplicate and dropped.
 */
export function cleanIncomingOfCleanSessions(
  aedes: Aedes,
  persistence: CleansIncoming,
  logger: Logger,
): void {
  const clean = (client: Client): void => {
    persistence.cleanIncoming(client).catch((err: unknown) => {
      logger.warn({ err, mqttClient: client.id }, 'MQTT: could not discard QoS 2 receipts');
    });
  };
  aedes.on('client', (client) => {
    if (cleanStarts.has(client)) clean(client);
  });
  aedes.on('clientDisconnect', (client) => {
    if (client.clean) clean(client);
  });
}
