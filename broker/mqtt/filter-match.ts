/** MQTT topic name and filter checks ([MQTT-4.7]); the filter match itself lives in shared/ (the console counts subscribers with it too). */
export { mqttFilterMatches } from '../../shared/mqtt-filter';

/** Whether `topic` can be published over MQTT: non-empty, no wildcards, no NUL. */
export function isMqttTopicName(topic: string): boolean {
  return topic.length > 0 && !topic.includes('+') && !topic.includes('#') && !topic.includes('\0');
}

/** [MQTT-4.7.1]: `#` alone and last, `+` alone in its level, no NUL, not empty. */
export function isMqttTopicFilter(filter: string): boolean {
  if (filter.length === 0 || filter.includes('\0')) return false;
  const levels = filter.split('/');
  return levels.every(
    (level, i) =>
      (level === '#' && i === levels.length - 1) ||
      level === '+' ||
      (!level.includes('#') && !level.includes('+')),
  );
}
