/**
 * Realm scoping of MQTT names inside the one shared aedes instance.
 *
 * Every topic and filter an MQTT client uses is stored in aedes as `<enc(realm)>/<topic>`, and
 * every client id as `<enc(realm)>/<id>`, where `enc` is `encodeURIComponent` (so a realm name
 * never contains `/`, `+` or `#` once encoded and two realms can never produce the same prefix).
 * Clients never see the prefix: it is added on the way in (publish, subscribe, unsubscribe, will)
 * and removed on the way out (`authorizeForward`). aedes' own `$SYS/<broker-id>/…` topics carry
 * no realm prefix, so no client filter can reach them.
 *
 * Topics and filters starting with `$` (the broker's, e.g. `$SYS/<realm>/…` presence) are kept
 * under `$swb:<enc(realm)>/` instead: a filter starting with a wildcard (`#`, `+/…`) is scoped
 * under `<enc(realm)>/`, a different first level, so it can never match them ([MQTT-4.7.2-1]),
 * while `$SYS/#` (scoped under the same `$swb:` prefix) does. `enc` never yields a `$`, so the
 * two kinds of internal names cannot collide.
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
  if (topic.length === 0) return topic;
  // A shared subscription keeps its `$share/` start (`$share/<enc(realm)>/<name>/<filter>`):
  // shared-subscribe-guard.ts takes it out of aedes' dispatch; it unscopes to nothing, so a use
  // that reaches aedes (before the CONNACK) is refused.
  if (topic.startsWith(SHARE)) return SHARE + realmPrefix(realm) + topic.slice(SHARE.length);
  return topic.charCodeAt(0) === DOLLAR
    ? SYSTEM_MARK + realmPrefix(realm) + topic
    : realmPrefix(realm) + topic;
}

const DOLLAR = 0x24;
const SHARE = '$share/';
/** First characters of the internal name of a `$` topic (see the module comment). */
const SYSTEM_MARK = '$swb:';

/** Splits an internal topic into its realm and client-visible topic; null when unscoped. */
export function unscopeTopic(internal: string): { realm: string; topic: string } | null {
  let start = 0;
  if (internal.charCodeAt(0) === DOLLAR) {
    // aedes' own `$SYS/<broker-id>/…` topics belong to no realm.
    if (!internal.startsWith(SYSTEM_MARK)) return null;
    start = SYSTEM_MARK.length;
  }
  const slash = internal.indexOf('/', start);
  if (slash <= start) return null;
  const topic = internal.slice(slash + 1);
  // A `$swb:` name holds a `$` topic and a plain one never does: anything else is forged.
  if (start > 0 !== (topic.charCodeAt(0) === DOLLAR)) return null;
  const realm = decodeRealm(internal.slice(start, slash));
  return realm === null ? null : { realm, topic };
}

/** Encoded realm → realm (every forwarded message is unscoped: decode each realm once). */
const decoded = new Map<string, string | null>();

function decodeRealm(encoded: string): string | null {
  let realm = decoded.get(encoded);
  if (realm === undefined) {
    try {
      realm = decodeURIComponent(encoded);
    } catch {
      realm = null;
    }
    // Bounded like `prefixes`: forged names must not grow it without end.
    if (decoded.size >= 10_000) decoded.clear();
    decoded.set(encoded, realm);
  }
  return realm;
}

/**
 * The aedes client id of MQTT client `id` in `realm`: sessions, takeover and wills are per realm,
 * and clients admitted without credentials (auth off, or a realm with `required: false`) have
 * their own ids, `<enc(realm)>?/<id>` (`enc` never yields `?`), so they can never take over an
 * authenticated client's session of the same realm.
 */
export function scopeClientId(realm: string, id: string, authenticated = true): string {
  const prefix = realmPrefix(realm);
  return authenticated ? prefix + id : `${prefix.slice(0, -1)}${ANONYMOUS_MARK}/${id}`;
}

/**
 * Every internal prefix of `realm`'s names: its topics and authenticated client ids (`<enc>/`),
 * its anonymous client ids (`<enc>?/`) and its `$` topics (`$swb:<enc>/`). Removing a realm
 * deletes everything stored under these.
 */
export function realmPrefixes(realm: string): string[] {
  const prefix = realmPrefix(realm);
  return [prefix, `${prefix.slice(0, -1)}${ANONYMOUS_MARK}/`, SYSTEM_MARK + prefix];
}

const ANONYMOUS_MARK = '?';

/** `realmPrefixes(from)` paired with `realmPrefixes(to)`: what a realm rename moves. */
export function zipPrefixes(from: string, to: string): Array<[string, string]> {
  const next = realmPrefixes(to);
  return realmPrefixes(from).map((prefix, i): [string, string] => [prefix, next[i]!]);
}

/** The client-visible id of a scoped aedes client id. */
export function unscopeClientId(internal: string): string {
  const slash = internal.indexOf('/');
  return slash < 0 ? internal : internal.slice(slash + 1);
}
