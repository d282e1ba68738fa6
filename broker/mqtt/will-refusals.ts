/**
 * Refused wills, counted and logged (issue 24).
 *
 * A will is published as a PUBLISH of the client that left it (MQTT 3.1.1 §3.1.2.5, MQTT 5.0
 * §3.1.3.3), so Switchboard authorizes it like one (mqtt-auth.ts): a will on a `$` topic
 * ([MQTT-4.7.2-1]: `$` topics are the broker's), of a role that may not publish, or whose
 * identity is no longer valid is dropped. aedes drops it silently; here each refusal moves
 * `tyo_mq_mqtt_wills_refused_total{reason}` and is logged once, at info level, with the client
 * id, realm, topic and reason — never the payload.
 *
 * A refused will restored from a previous run (aedes' will sweep, no live client) is deleted
 * from the persistence too: the sweep would otherwise retry (and log) it every sweep. The error
 * the sweep then reports to aedes' `error` event is recognised (`reported`) so that the listener
 * does not log it a second time as a broker error.
 */
import type { Client } from 'aedes';
import { Counter, type Registry } from 'prom-client';
import { MetricName } from '../../shared/metric-names';
import type { Logger } from '../logging/logger';
import type { MqttIdentity } from './mqtt-identity';
import { unscopeTopic } from './realm-topics';

/** Why a publish (or will) was refused: the `reason` label values. */
export type PublishRefusal =
  'reserved_topic' | 'role' | 'not_authorized' | 'e2ee_required' | 'other';

const REFUSAL = Symbol('publishRefusal');

/** An authorization error carrying its `reason` label (mqtt-auth.ts makes them). */
export function publishRefused(reason: PublishRefusal, message: string): Error {
  return Object.assign(new Error(message), { [REFUSAL]: reason });
}

function refusalOf(err: Error): PublishRefusal {
  return (err as { [REFUSAL]?: PublishRefusal })[REFUSAL] ?? 'other';
}

/** Will objects as the persistence holds them (bounded-persistence.ts `putWill` marks them). */
const wills = new WeakSet<object>();

/** Marks `packet` as a will: aedes later authorizes and publishes this very object. */
export function markWill(packet: object): void {
  wills.add(packet);
}

/**
 * Whether `packet` handed to `authorizePublish` is a will. aedes stores the CONNECT's will
 * object with `putWill` and later publishes that same object (a live client's will, and a
 * restored one from the will sweep), so the mark set there identifies it.
 */
export function isWill(packet: object): boolean {
  return wills.has(packet);
}

export class WillRefusals {
  private readonly counter: Counter<'reason'> | null;
  private readonly logged = new WeakSet<object>();
  private readonly errors = new WeakSet<Error>();

  /**
   * @param registry the broker's metrics registry (undefined: not counted)
   * @param identityOf the identity of a live client, or the one stored with a restored will
   *   (client null), for the log line
   * @param delWill deletes the stored will of a client id (a refused restored will)
   */
  constructor(
    registry: Registry | undefined,
    private readonly logger: Logger,
    private readonly identityOf: (client: Client | null, will: object) => MqttIdentity | undefined,
    private readonly delWill: (clientId: string) => Promise<unknown>,
  ) {
    // Get-or-create: a listener closed and listening again keeps the broker's registry.
    const existing = registry?.getSingleMetric(MetricName.MQTT_WILLS_REFUSED_TOTAL);
    this.counter = registry
      ? ((existing as Counter<'reason'> | undefined) ??
        new Counter({
          name: MetricName.MQTT_WILLS_REFUSED_TOTAL,
          help: 'MQTT wills refused at publish ($ topic, role, identity no longer valid), by reason',
          labelNames: ['reason'],
          registers: [registry],
        }))
      : null;
  }

  /** Whether aedes reported `err` after it was counted and logged here (the will sweep). */
  reported(err: unknown): boolean {
    return err instanceof Error && this.errors.has(err);
  }

  /**
   * `authorizePublish` refused `packet` with `err`: counted and logged when it is a will.
   * `client` is null for a will restored from a previous run.
   */
  check(client: Client | null, packet: { topic: string; clientId?: unknown }, err: Error): void {
    if (!isWill(packet)) return;
    const reason = refusalOf(err);
    this.counter?.inc({ reason });
    this.errors.add(err);
    const key: object = client ?? packet;
    if (this.logged.has(key)) return;
    this.logged.add(key);
    const identity = this.identityOf(client, packet);
    const scoped = unscopeTopic(packet.topic);
    const clientId = identity?.clientId ?? (client ? client.id : String(packet.clientId));
    this.logger.info(
      { mqttClient: clientId, realm: scoped?.realm, topic: scoped?.topic, reason },
      `MQTT will refused: ${err.message}`,
    );
    if (client === null && typeof packet.clientId === 'string') {
      this.delWill(packet.clientId).catch((e: unknown) =>
        this.logger.warn({ err: e, mqttClient: clientId }, 'MQTT: a refused will stays stored'),
      );
    }
  }
}
