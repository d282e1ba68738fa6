/**
 * Only PUBLISH properties on a PUBLISH (issue 24; OASIS MQTT 5.0 §3.3.2.3 PUBLISH Properties).
 *
 * A will is sent as a PUBLISH built from the CONNECT's Will Properties, and one of those, Will
 * Delay Interval (§3.1.3.2.2), belongs to CONNECT alone: aedes 2.0.0-beta.1 forwards the will's
 * properties as they are, so MQTT 5 subscribers got a PUBLISH with a Will Delay Interval, which
 * strict clients refuse as a Protocol Error. mqtt-packet also parses any property in a client's
 * PUBLISH, so a CONNECT-only property sent there would be forwarded the same way.
 *
 * Every publish Switchboard authorizes (a client's PUBLISH, a live or restored will) keeps only
 * the properties §3.3.2.3 allows: Payload Format Indicator, Message Expiry Interval, Topic
 * Alias, Response Topic, Correlation Data, User Property, Subscription Identifier, Content Type.
 * The will itself still waits its Will Delay Interval: aedes reads it before it publishes.
 */

const PUBLISH_PROPERTIES: ReadonlySet<string> = new Set([
  'payloadFormatIndicator',
  'messageExpiryInterval',
  'topicAlias',
  'responseTopic',
  'correlationData',
  'userProperties',
  'subscriptionIdentifier',
  'contentType',
]);

/**
 * Drops from `packet.properties` what a PUBLISH may not carry. The properties object is
 * replaced, not changed, when something is dropped (a will's may be shared with the stored
 * will); a packet without properties (every MQTT 3.1.1 one) costs one check.
 */
export function keepPublishProperties(packet: { properties?: Record<string, unknown> }): void {
  const properties = packet.properties;
  if (!properties) return;
  const names = Object.keys(properties);
  if (names.every((name) => PUBLISH_PROPERTIES.has(name))) return;
  const kept: Record<string, unknown> = {};
  for (const name of names) if (PUBLISH_PROPERTIES.has(name)) kept[name] = properties[name];
  packet.properties = kept;
}
