/**
 * Whether an MQTT topic filter matches a topic name ([MQTT-4.7]): `+` matches one level, a
 * final `#` the parent level and everything below; a filter starting with a wildcard never
 * matches a topic starting with `$` ([MQTT-4.7.2-1]). Pure; used to count a producer's MQTT
 * subscribers in `GET /api/clients` and the console's Topic tree (the routing itself is aedes').
 */
export function mqttFilterMatches(filter: string, topic: string): boolean {
  if (filter.length === 0 || topic.length === 0) return false;
  if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) return false;
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i += 1) {
    const level = f[i];
    if (level === '#') return i === f.length - 1;
    if (i >= t.length) return false;
    if (level !== '+' && level !== t[i]) return false;
  }
  return f.length === t.length;
}
