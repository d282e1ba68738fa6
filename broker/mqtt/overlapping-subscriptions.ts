/**
 * One PUBLISH per message for a client whose subscriptions overlap, carrying every matching
 * Subscription Identifier, at the highest QoS those subscriptions granted (issue 24; OASIS
 * MQTT 5.0 §3.3.4, [MQTT-3.3.4-2] deliver once at the maximum QoS, [MQTT-3.3.4-3..5] the
 * identifiers of all matching subscriptions). Mosquitto sends the same.
 *
 * aedes 2.0.0-beta.1 calls each matching subscription's delivery function with the routed
 * message; the first call is sent (with that subscription's identifier and its choice of QoS 0
 * or QoS ≥ 1) and the later ones are dropped as duplicates (`brokerCounter`). So a message
 * matching `topic/#` (id 2) and `topic/+` (id 3) carried one identifier, and one matching a
 * QoS 0 subscription first went out at QoS 0 whatever the other subscriptions granted. Its QoS
 * cap was also applied only for an exact-topic subscription (`subscriptions[packet.topic]`), so
 * a QoS 2 message reached a wildcard QoS 1 subscription at QoS 2.
 *
 * The guard wraps the client's two delivery functions (aedes captures them when a subscription
 * is made, so it must run before the CONNECT restores any). On the first call for a routed
 * message it looks at all of the client's subscriptions matching the topic — the client's own,
 * so no other client's identifier can appear — and rewrites the copy: Subscription Identifier
 * = the identifiers of those that have one (none, one number, or an ascending list), QoS =
 * min(the PUBLISH's QoS, the highest granted QoS), through aedes' QoS 0 or QoS ≥ 1 path
 * accordingly. aedes' own dedupe still drops the later calls. A subscription with No Local does
 * not count for the client's own messages. Retained messages sent on SUBSCRIBE and the queue
 * drained on reconnect do not pass here (aedes sets their properties itself). Cost: one filter
 * match per subscription of the client per routed message, only for clients holding two or more.
 * Shared subscriptions (`$share/…`) are not aedes subscriptions (shared-subscriptions.ts).
 */
import type { Client } from 'aedes';
import { mqttFilterMatches } from './filter-match';

type Deliver = (packet: RoutedCopy, cb: () => void) => void;

/** The copy aedes hands a subscription's delivery function (aedes-packet, plus `nl`). */
interface RoutedCopy {
  topic: string;
  qos: number;
  brokerId?: string | null;
  brokerCounter?: number;
  clientId?: string;
  nl?: boolean;
  properties?: Record<string, unknown>;
}

/** The aedes 2.0.0-beta.1 client state the guard reads and wraps. */
interface ClientInternals {
  id: string;
  deliver0: Deliver;
  deliverQoS: Deliver;
  duplicates: Record<string, number>;
  subscriptions: Record<string, { qos: number; nl?: boolean; si?: number }>;
}

/** Puts the guard on `client` (right after `aedes.handle`, before its CONNECT is read). */
export function mergeOverlappingSubscriptions(client: Client): void {
  const c = client as unknown as ClientInternals;
  const deliver0 = c.deliver0;
  const deliverQoS = c.deliverQoS;
  const merged =
    (own: Deliver): Deliver =>
    (packet, cb) => {
      const next = firstCopy(c, packet) ? rewrite(c, packet, deliver0, deliverQoS) : null;
      (next ?? own)(packet, cb);
    };
  c.deliver0 = merged(deliver0);
  c.deliverQoS = merged(deliverQoS);
}

/**
 * Whether `packet` is a routed message's copy through a subscription (aedes sets `nl` on those
 * alone) that aedes will send now: not one it already sent, not the client's own under No Local.
 */
function firstCopy(c: ClientInternals, packet: RoutedCopy): boolean {
  if (!Object.prototype.hasOwnProperty.call(packet, 'nl') || !packet.brokerId) return false;
  if (packet.nl && packet.clientId === c.id) return false;
  return (c.duplicates[packet.brokerId] ?? 0) < (packet.brokerCounter ?? 0);
}

/** Sets the merged identifiers and QoS on `packet`; returns the aedes path to send it by. */
function rewrite(
  c: ClientInternals,
  packet: RoutedCopy,
  deliver0: Deliver,
  deliverQoS: Deliver,
): Deliver | null {
  const subs = c.subscriptions;
  const filters = Object.keys(subs);
  if (filters.length === 0) return null;
  const own = packet.clientId === c.id;
  const ids = new Set<number>();
  let maxQos = -1;
  for (const filter of filters) {
    const sub = subs[filter]!;
    if ((own && sub.nl) || !mqttFilterMatches(filter, packet.topic)) continue;
    if (sub.si !== undefined) ids.add(sub.si);
    maxQos = Math.max(maxQos, sub.qos ?? 0);
  }
  if (maxQos < 0) return null;
  if (packet.properties !== undefined || ids.size > 0) {
    // A fresh object: aedes shares a packet's properties between all of its copies.
    const { subscriptionIdentifier: _drop, ...rest } = packet.properties ?? {};
    const list = [...ids].sort((a, b) => a - b);
    packet.properties =
      list.length === 0
        ? rest
        : { ...rest, subscriptionIdentifier: list.length === 1 ? list[0] : list };
  }
  packet.qos = Math.min(packet.qos, maxQos);
  return packet.qos === 0 ? deliver0 : deliverQoS;
}
