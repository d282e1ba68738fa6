/** MQTT topic filter matching used to count a producer's MQTT subscribers ([MQTT-4.7]). */
import { describe, expect, it } from 'vitest';
import { isMqttTopicName, mqttFilterMatches } from '../../../broker/mqtt/filter-match';

describe('mqttFilterMatches', () => {
  it('matches exact levels, + for one level and a final # for the rest', () => {
    expect(mqttFilterMatches('a/b', 'a/b')).toBe(true);
    expect(mqttFilterMatches('a/b', 'a/c')).toBe(false);
    expect(mqttFilterMatches('a/+/c', 'a/b/c')).toBe(true);
    expect(mqttFilterMatches('a/+', 'a/b/c')).toBe(false);
    expect(mqttFilterMatches('a/#', 'a')).toBe(true);
    expect(mqttFilterMatches('a/#', 'a/b/c')).toBe(true);
    expect(mqttFilterMatches('#', 'x/y')).toBe(true);
    expect(mqttFilterMatches('+/+', 'a/b')).toBe(true);
    expect(mqttFilterMatches('a/b', 'a/b/c')).toBe(false);
    expect(mqttFilterMatches('A/b', 'a/b')).toBe(false);
  });

  it('keeps $ topics from leading wildcards, and refuses empty names', () => {
    expect(mqttFilterMatches('#', '$SYS/x')).toBe(false);
    expect(mqttFilterMatches('+/x', '$SYS/x')).toBe(false);
    expect(mqttFilterMatches('$SYS/#', '$SYS/x')).toBe(true);
    expect(mqttFilterMatches('', 'a')).toBe(false);
    expect(mqttFilterMatches('a', '')).toBe(false);
    expect(isMqttTopicName('a/b')).toBe(true);
    expect(isMqttTopicName('a/+')).toBe(false);
    expect(isMqttTopicName('a/#')).toBe(false);
    expect(isMqttTopicName('')).toBe(false);
  });
});
