/**
 * Subscriber counts of the Topic tree (issue 27): from the broker's registrations
 * (`GET /api/clients`, docs/http-api.md), how many clients of a realm would get a message on a
 * topic — online socket.io consumers whose subscription matches it, and connected MQTT clients
 * with a matching filter — each client counted once. The console's own taps and trees are not
 * counted (they are not the operator's subscribers).
 *
 * Matching (`spec/protocol-core.md` §2.2, §11): a topic-mode subscription's pattern and an MQTT
 * filter match with MQTT's wildcards ([MQTT-4.7]); an exact subscription's key is
 * `lc(producer + "-" + event)`, so its event is compared without case; `TM-ALL` (every event of
 * one producer, Note 2.3-A) matches every topic, since that producer may publish on any.
 */
import type { ClientList } from '../../shared/console-api-operations';
import { Protocol } from '../../shared/protocol-events';
import { mqttFilterMatches } from '../../shared/mqtt-filter';
import { TAP_CONSUMER_PREFIX } from './tap-leftovers';

/** Counts the subscribers of one topic name. */
export type SubscriberCounter = (topic: string) => number;

type Matcher = (topic: string, lower: string) => boolean;

/** One client's matchers (a client matches when any of them does). */
function consumerMatchers(
  subscriptions: ClientList['realms'][number]['consumers'][number]['subscriptions'],
  producer: string | undefined,
): Matcher[] {
  const out: Matcher[] = [];
  const any = Protocol.ALL_PUBLISHERS.toLowerCase();
  for (const sub of subscriptions) {
    if (sub.mode === 'topic' && sub.pattern !== null) {
      const pattern = sub.pattern;
      out.push((topic) => mqttFilterMatches(pattern, topic));
      continue;
    }
    const from = sub.producer.toLowerCase();
    if (producer !== undefined && from !== any && from !== producer.toLowerCase()) continue;
    const prefix = `${sub.producer.toLowerCase()}-`;
    if (!sub.key.startsWith(prefix)) continue;
    const event = sub.key.slice(prefix.length);
    if (event === Protocol.EVENT_ALL.toLowerCase() || event === Protocol.EVENT_ALL) {
      out.push(() => true);
    } else {
      out.push((_topic, lower) => lower === event);
    }
  }
  return out;
}

/**
 * The counter of `realm` in `list`, or null when the list has no such realm (a broker without
 * registrations listing: the page shows "—"). `producer`: count only the exact subscriptions
 * that would receive a message from it (any producer's otherwise, as the topic tree shows).
 */
export function subscriberCounter(
  list: ClientList,
  realm: string,
  producer?: string,
): SubscriberCounter | null {
  const entry = list.realms.find((r) => r.name === realm);
  if (!entry) return null;
  const clients: Matcher[][] = [];
  for (const consumer of entry.consumers) {
    if (!consumer.online || consumer.name.startsWith(TAP_CONSUMER_PREFIX)) continue;
    const matchers = consumerMatchers(consumer.subscriptions, producer);
    if (matchers.length > 0) clients.push(matchers);
  }
  for (const device of entry.mqtt ?? []) {
    const filters = device.subscriptions.map((s) => s.filter);
    if (filters.length > 0) {
      clients.push(filters.map((filter) => (topic: string) => mqttFilterMatches(filter, topic)));
    }
  }
  return (topic) => {
    const lower = topic.toLowerCase();
    let n = 0;
    for (const matchers of clients) {
      if (matchers.some((match) => match(topic, lower))) n += 1;
    }
    return n;
  };
}
