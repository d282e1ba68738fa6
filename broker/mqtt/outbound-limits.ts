/**
 * The limits an MQTT 5 client sets in its CONNECT, honoured on what the server sends it (issue
 * 24; OASIS MQTT 5.0 §3.1.2.11.3 Receive Maximum, §3.1.2.11.4 Maximum Packet Size, §3.3.2.3.3
 * Message Expiry Interval, §4.9 Flow Control). aedes 2.0.0-beta.1 records both limits and
 * enforces neither.
 *
 * - **Maximum Packet Size** ([MQTT-3.1.2-24/25]): no packet larger than the client's limit is
 *   sent. Acknowledgements lose their Reason String, then User Properties, if that makes them
 *   fit (packet-size-fit.ts). A PUBLISH that does not fit is discarded for this client and the
 *   server behaves as if it had completed sending it: a QoS 1/2 copy is removed from the
 *   session's queue (it is not re-sent on reconnect, and takes no Receive Maximum slot), counted
 *   in `tyo_mq_mqtt_oversize_discarded_total{cmd}` and logged once per connection. Any other
 *   packet that cannot fit (a CONNACK or SUBACK over a limit of a few bytes) is not sent either,
 *   and the connection is closed: the session cannot go on without it.
 * - **Receive Maximum** ([MQTT-3.3.4-9]): at most that many QoS 1 and QoS 2 PUBLISHes are sent
 *   and not yet answered by PUBACK, PUBCOMP or a PUBREC with a reason code ≥ 0x80. Further ones
 *   wait, in order, in this connection's queue, and go out one per freed slot; QoS 0 and the
 *   other packets are not held. A queued copy whose Message Expiry Interval passes while it
 *   waits is dropped as [MQTT-3.3.2-5] says (and removed from the session), and one sent later
 *   carries the remaining interval, rounded up ([MQTT-3.3.2-6]).
 *
 * How: aedes serialises every packet it sends with mqtt-packet's `writeToStream`, called through
 * the module object (`mqtt.writeToStream` in aedes' lib/write.js); `packet-writes.ts` hooks it
 * once, and this module is its sink: a watched connection's packets go to its `Flow`, every
 * other stream's to the original at the cost of one WeakMap look-up. Only MQTT 5 connections whose
 * CONNECT set a Maximum Packet Size or a Receive Maximum below 65,535 are watched. Acks are
 * seen on the parser's `packet` event (before aedes handles them). A copy still waiting when
 * the connection ends stays in a persistent session's queue with the message id aedes gave it,
 * so it is sent on reconnect with DUP=1 (redelivery-dup.ts). These are aedes and mqtt-packet
 * internals: test/broker/mqtt/mqtt-outbound-limits.test.ts covers them.
 */
import type { Client } from 'aedes';
import type { Packet } from 'mqtt-packet';
import { Counter, type Registry } from 'prom-client';
import { MetricName } from '../../shared/metric-names';
import type { Logger } from '../logging/logger';
import { fitPacket } from './packet-size-fit';
import { setPacketSink, writeUnhooked, type PacketSink } from './packet-writes';

/** What Receive Maximum is when the CONNECT does not set it (MQTT 5.0 §3.1.2.11.3). */
const RECEIVE_MAXIMUM_DEFAULT = 65_535;
/** A PUBREC reason code from this one up ends the QoS 2 exchange (MQTT 5.0 §4.3.3). */
const REASON_CODE_ERROR = 0x80;

const flows = new WeakMap<object, Flow>();

/** The process's one packet sink: a watched connection's packets go to its flow. */
const toFlow: PacketSink = (packet, stream, opts) => flows.get(stream)?.write(packet, opts ?? {});

function installWriteHook(): void {
  setPacketSink(toFlow);
}

interface OutPublish {
  cmd: 'publish';
  qos: number;
  messageId?: number;
  messageExpiry?: number;
  properties?: Record<string, unknown>;
}

interface ClientInternals {
  _parser: NodeJS.EventEmitter;
  clean: boolean;
  closed: boolean;
  close(done?: () => void): void;
  broker: { persistence: { outgoingClearMessageId(c: Client, p: object): Promise<unknown> } };
}

/** What OutboundLimits reports: a packet that did not fit (`logOnce`: first of its connection). */
export type OversizeReport = (client: Client, cmd: string, size: number, max: number) => void;

class Flow {
  private readonly inflight = new Set<number>();
  private readonly waiting: Array<{ packet: OutPublish; opts: object }> = [];
  private reported = false;

  constructor(
    private readonly client: Client,
    private readonly maxSize: number,
    private readonly receiveMaximum: number,
    private readonly onOversize: OversizeReport,
  ) {}

  /** One packet aedes writes; true = written or taken care of, false = wait for `drain`. */
  write(packet: Packet, opts: object): boolean {
    const p = packet as unknown as OutPublish;
    if (p.cmd === 'publish' && p.qos > 0 && this.receiveMaximum < RECEIVE_MAXIMUM_DEFAULT) {
      if (this.waiting.length > 0 || this.inflight.size >= this.receiveMaximum) {
        this.waiting.push({ packet: p, opts });
        return true;
      }
    }
    return this.send(packet, opts);
  }

  /** An ack from the client: frees the slot of `messageId`, and sends what fits in it. */
  acked(messageId: number): void {
    if (!this.inflight.delete(messageId)) return;
    while (this.waiting.length > 0 && this.inflight.size < this.receiveMaximum) {
      const next = this.waiting.shift()!;
      const packet = this.unexpired(next.packet);
      if (!packet) continue;
      try {
        this.send(packet as unknown as Packet, next.opts);
      } catch (err) {
        this.client.conn.destroy(err instanceof Error ? err : new Error(String(err)));
        return;
      }
    }
  }

  /** `packet` with its remaining Message Expiry Interval, or null (dropped) once expired. */
  private unexpired(packet: OutPublish): OutPublish | null {
    if (packet.messageExpiry === undefined) return packet;
    const left = packet.messageExpiry - Date.now();
    if (left <= 0) {
      this.forget(packet);
      return null;
    }
    const messageExpiryInterval = Math.ceil(left / 1000);
    return { ...packet, properties: { ...packet.properties, messageExpiryInterval } };
  }

  private send(packet: Packet, opts: object): boolean {
    const p = packet as unknown as OutPublish;
    const counts = p.cmd === 'publish' && p.qos > 0 && p.messageId !== undefined;
    if (this.maxSize > 0) {
      const buf = fitPacket(packet, opts, this.maxSize);
      if (!buf) return this.oversize(packet, opts);
      if (counts) this.inflight.add(p.messageId!);
      return this.client.conn.write(buf);
    }
    if (counts) this.inflight.add(p.messageId!);
    return writeUnhooked(packet, this.client.conn, opts);
  }

  private oversize(packet: Packet, opts: object): boolean {
    if (!this.reported) {
      this.reported = true;
      this.onOversize(this.client, packet.cmd, fitSize(packet, opts), this.maxSize);
    } else this.onOversize(this.client, packet.cmd, -1, this.maxSize);
    const c = this.client as unknown as ClientInternals;
    if (packet.cmd === 'publish') {
      // As if sent and acknowledged: a persistent session must not offer it again.
      if ((packet as unknown as OutPublish).qos > 0) this.forget(packet as unknown as OutPublish);
    } else setImmediate(() => c.close());
    return true;
  }

  private forget(packet: OutPublish): void {
    const c = this.client as unknown as ClientInternals;
    if (c.clean || packet.messageId === undefined) return;
    c.broker.persistence.outgoingClearMessageId(this.client, packet).catch(() => undefined);
  }
}

/** The whole packet's size in bytes (for the log line). */
function fitSize(packet: Packet, opts: object): number {
  return fitPacket(packet, opts, Number.MAX_SAFE_INTEGER)?.length ?? -1;
}

interface ConnectPacket {
  cmd: string;
  protocolVersion?: number;
  properties?: { maximumPacketSize?: number; receiveMaximum?: number };
}

interface AckPacket {
  cmd: string;
  messageId?: number;
  reasonCode?: number;
}

export class OutboundLimits {
  private readonly counter: Counter<'cmd'> | null;

  /**
   * @param registry the broker's metrics registry (undefined: not counted)
   * @param logger where the first discard of each connection is logged (info)
   * @param describe the client id and realm of a client, for that log line
   */
  constructor(
    registry: Registry | undefined,
    private readonly logger: Logger,
    private readonly describe: (client: Client) => { mqttClient: string; realm?: string },
  ) {
    installWriteHook();
    const existing = registry?.getSingleMetric(MetricName.MQTT_OVERSIZE_DISCARDED_TOTAL);
    this.counter = registry
      ? ((existing as Counter<'cmd'> | undefined) ??
        new Counter({
          name: MetricName.MQTT_OVERSIZE_DISCARDED_TOTAL,
          help: 'MQTT packets not sent: larger than the Maximum Packet Size of their client',
          labelNames: ['cmd'],
          registers: [registry],
        }))
      : null;
  }

  /** Watches `client` from its CONNECT on; call for every connection, right after `handle`. */
  watch(client: Client): void {
    const parser = (client as unknown as ClientInternals)._parser;
    let flow: Flow | null = null;
    parser.prependListener('packet', (packet: ConnectPacket & AckPacket) => {
      if (packet.cmd === 'connect') {
        flow = this.flowFor(client, packet);
        return;
      }
      if (!flow || packet.messageId === undefined) return;
      const cmd = packet.cmd;
      if (
        cmd === 'puback' ||
        cmd === 'pubcomp' ||
        (cmd === 'pubrec' && (packet.reasonCode ?? 0) >= REASON_CODE_ERROR)
      ) {
        flow.acked(packet.messageId);
      }
    });
  }

  private flowFor(client: Client, connect: ConnectPacket): Flow | null {
    if (connect.protocolVersion !== 5) return null;
    const maxSize = connect.properties?.maximumPacketSize ?? 0;
    const receiveMaximum = connect.properties?.receiveMaximum ?? RECEIVE_MAXIMUM_DEFAULT;
    if (maxSize <= 0 && receiveMaximum >= RECEIVE_MAXIMUM_DEFAULT) return null;
    const flow = new Flow(client, maxSize, receiveMaximum, (c, cmd, size, max) => {
      this.counter?.inc({ cmd });
      if (size >= 0) {
        this.logger.info(
          { ...this.describe(c), cmd, size, maximumPacketSize: max },
          'MQTT packet over the client’s Maximum Packet Size: not sent (logged once per connection)',
        );
      }
    });
    flows.set(client.conn, flow);
    return flow;
  }
}
