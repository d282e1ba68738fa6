/**
 * Realm scoping of MQTT names inside the one shared aedes instance.
 *
 * Every topic and filter an MQTT client uses is stored in aedes as `<enc(realm)>/<topic>`, and
 * every client id as `<enc(realm)>/<id>`, where `enc` is `encodeURIComponent` (so a realm name
 * never contains `/`, `+` or `#` once encoded and two realms can never produce the same prefix).
 * Clients never see the prefix: it is added on the way in (publish, subscribe, unsubscribe, will)
 * and removed on the way out (`authorizeForward`). aedes' own `$SYS/<broker-id>/…` topics carry
 * no realm prefix, so no client filter can reach them.
 */

/** The internal prefix of `realm`'s topics, with its trailing `/`. */
export function realmPrefix(realm: string): string {
  let prefix = prefixes.get(realm);
  if (prefix === undefined) {
    prefix = `${encodeURIComponent(realm)}/`;
    // Bounded: realm names come from authenticated identities, but never grow without end.
    if (prefixes.size >= 10_000) prefixes.clear();
    prefixes.set(realm, prefix);
  }
  return prefix;
}

const prefixes = new Map<string, string>();

/**
 * The internal form of a client's topic or filter. An empty topic is returned unchanged so that
 * aedes still refuses it as the protocol requires.
 */
export function scopeTopic(realm: string, topic: string): string {
  return topic.length === 0 ? topic : realmPrefix(realm) + topic;
}

/** Splits an internal topic into its realm and client-visible topic; null when unscoped. */
export function unscopeTopic(internal: string): { realm: string; topic: string } | null {
  const slash = internal.indexOf('/');
  if (slash <= 0) return null;
  let realm: string;
  try {
    realm = decodeURIComponent(internal.slice(0, slash));
  } catch {
    return null;
  }
  return { realm, topic: internal.slice(slash + 1) };
}

/** The aedes client id of MQTT client `id` in `realm` (sessions and takeover are per realm). */
export function scopeClientId(realm: string, id: string): string {
  return realmPrefix(realm) + id;
}

/** The client-visible id of a scoped aedes client id. */
export function unscopeClientId(internal: string): string {
  const slash = internal.indexOf('/');
  return slash < 0 ? internal : internal.slice(slash + 1);
}
