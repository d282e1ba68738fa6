/**
 * Routing between MQTT and tyo-mq in the same realm (issue 14; `spec/protocol-core.md` §7, §11).
 *
 * MQTT → tyo-mq: every PUBLISH from an MQTT client (and its will, also one restored from a
 * previous run) is routed by the Router as a produced message: `event` = the MQTT topic (case
 * kept; tyo-mq matching lowercases it, §11), `from` = the MQTT client id (as the client chose
 * it), guaranteed when QoS > 0. For QoS > 0 the PUBACK waits until the durable copies are
 * committed.
 * tyo-mq → MQTT: every routed non-broadcast message whose event is a valid MQTT topic name (no
 * `+`, `#`, not empty, not starting with `$`) is published into aedes at QoS 1 in the producer's
 * realm; each MQTT subscriber receives it at most at its subscription's QoS.
 * A message never crosses back: messages from MQTT are not republished into aedes, and
 * messages injected from tyo-mq carry no MQTT client (nor a restored will's identity), so they
 * are not routed again.
 */
import type { Aedes, AedesPublishPacket, Client } from 'aedes';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { GroupMemberSource } from '../routing/group-members';
import type { ProducedMessage } from '../routing/produced-message';
import type { Router } from '../routing/router';
import type { MqttAuth } from './mqtt-auth';
import { fromMqttPayload, toMqttPayload } from './payload-mapping';
import { scopeTopic, unscopeTopic } from './realm-topics';
import { restoredWillIdentity } from './packet-codec';

export class MqttBridge {
  /** Messages routed from MQTT, with the PUBLISH they came from (shared subscriptions). */
  private readonly fromMqtt = new WeakMap<ProducedMessage, AedesPublishPacket>();
  private aedes: Aedes | null = null;

  constructor(
    private readonly auth: MqttAuth,
    private readonly router: Router,
    private readonly metrics: BrokerMetrics,
    private readonly logger: Logger,
  ) {}

  /** Starts forwarding tyo-mq messages into `aedes`; returns the stop function. */
  start(aedes: Aedes): () => void {
    this.aedes = aedes;
    const removeTap = this.router.addTap(this.tap);
    return () => {
      removeTap();
      this.aedes = null;
    };
  }

  /** The MQTT PUBLISH `msg` was routed from; undefined for a tyo-mq message. */
  mqttPacketOf(msg: ProducedMessage): AedesPublishPacket | undefined {
    return this.fromMqtt.get(msg);
  }

  /**
   * Adds consumer-group members from MQTT shared subscriptions to the Router (`interested`:
   * the realms holding some, so MQTT publishes there are routed); returns the removal.
   */
  addGroupMembers(source: GroupMemberSource, interested: (realm: string) => boolean): () => void {
    return this.router.addGroupMembers(source, interested);
  }

  /** aedes `published` hook: MQTT → tyo-mq. */
  readonly published = (
    packet: AedesPublishPacket,
    client: Client | null,
    callback: (error?: Error | null) => void,
  ): void => {
    // A will restored from a previous run is published without its client (aedes' will sweep),
    // after `authorizePublish` accepted the identity stored with it: routed as that client's.
    const identity = client ? this.auth.identity(client) : restoredWillIdentity(packet);
    const scoped = identity ? unscopeTopic(packet.topic) : null;
    // Clearing a retained message (empty retained payload) is MQTT housekeeping, not a message.
    if (!identity || !scoped || (packet.retain && packet.payload.length === 0)) {
      callback();
      return;
    }
    this.metrics.messageProduced(scoped.realm, scoped.topic);
    // Nobody on the tyo-mq side of this realm: skip the payload conversion and the routing.
    if (!this.router.mayDeliver(scoped.realm)) {
      callback();
      return;
    }
    const { message, enc } = fromMqttPayload(packet.payload);
    const msg: ProducedMessage = {
      realm: scoped.realm,
      event: scoped.topic,
      message,
      from: identity.clientId,
      ttl: undefined,
      guaranteed: packet.qos > 0,
      broadcast: null,
      group: null,
    };
    if (enc !== undefined) msg.enc = enc;
    this.fromMqtt.set(msg, packet);
    let stored;
    try {
      stored = this.router.route(msg);
    } catch (err) {
      this.logger.error({ err, realm: msg.realm }, 'MQTT publish not routed');
      callback();
      return;
    }
    if (stored.length === 0) {
      callback();
      return;
    }
    void Promise.all(stored).then((outcomes) => {
      for (const o of outcomes) {
        if (!o.ok) {
          this.logger.warn(
            { realm: msg.realm, event: msg.event, err: o.error.message },
            'durable copy of an MQTT publish not stored',
          );
        }
      }
      callback();
    });
  };

  /** Router tap: tyo-mq → MQTT. */
  private readonly tap = (msg: ProducedMessage): void => {
    const aedes = this.aedes;
    if (!aedes || msg.broadcast !== null || this.fromMqtt.has(msg)) return;
    const topic = msg.event;
    if (topic.length === 0 || topic.startsWith('$') || topic.includes('+') || topic.includes('#')) {
      return;
    }
    aedes.publish(
      {
        cmd: 'publish',
        topic: scopeTopic(msg.realm, topic),
        payload: toMqttPayload(msg.message, msg.enc),
        qos: 1,
        retain: false,
        dup: false,
      },
      (err) => {
        if (err) this.logger.warn({ err, realm: msg.realm }, 'message not forwarded to MQTT');
      },
    );
  };
}
