/**
 * The guards every new MQTT connection gets, in the order they must see its packets (each one's
 * clause is in its own module): unknown PUBREL ids (MQTT 5 §4.3.3), `$share` subscriptions
 * (§4.8.2) and their CONNACK flag, the server's Receive Maximum (§3.3.4), the client's limits
 * on what we send (§3.1.2.11), the inbound packet size, unknown protocol levels
 * ([MQTT-3.1.2-2]), Clean Start, a resumed session's backlog (§3.1.2.11.2), one PUBLISH per
 * message over overlapping subscriptions (§3.3.4), the backlog before live messages on resume
 * (§4.6), then our auth's watch (revocation, expiry).
 */
import type { Aedes, Client } from 'aedes';
import type { Logger } from '../logging/logger';
import type { MqttAuth } from './mqtt-auth';
import { wireSize, watchCleanStart } from './mqtt5-options';
import type { OutboundLimits } from './outbound-limits';
import { holdLiveUntilBacklog } from './backlog-first';
import { mergeOverlappingSubscriptions } from './overlapping-subscriptions';
import { guardParser } from './packet-guard';
import { refuseUnknownProtocolLevel } from './protocol-level-guard';
import { answerUnknownPubrel } from './pubrel-guard';
import { keepResumedBacklog } from './resumed-backlog';
import type { ReceiveMaximumGuard } from './receive-maximum-guard';
import { advertiseSharedSubscriptions, guardSharedSubscriptions } from './shared-subscribe-guard';
import type { SharedSubscriptions } from './shared-subscriptions';

export interface ConnectionGuards {
  aedes: Aedes;
  auth: MqttAuth;
  shared: SharedSubscriptions;
  receiveMaximum: ReceiveMaximumGuard;
  outbound: OutboundLimits;
  /** `mqtt.max_packet_size`, bytes. */
  maxPacketSize: number;
  logger: Logger;
}

/** Puts every guard on `client`, just handed `conn` by aedes. */
export function guardConnection(client: Client, conn: object, g: ConnectionGuards): void {
  answerUnknownPubrel(client, wireSize);
  guardSharedSubscriptions(client, g.aedes, g.auth, g.shared);
  advertiseSharedSubscriptions(conn);
  g.receiveMaximum.watch(client);
  g.outbound.watch(client);
  guardParser(client, g.maxPacketSize);
  refuseUnknownProtocolLevel(client, () =>
    g.logger.debug('MQTT CONNECT of an unknown protocol level: CONNACK 0x01'),
  );
  watchCleanStart(client);
  keepResumedBacklog(client);
  mergeOverlappingSubscriptions(client);
  holdLiveUntilBacklog(client);
  g.auth.watch(client);
}
