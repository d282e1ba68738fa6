/** MQTT payload ↔ tyo-mq message mapping (issue 14; docs/mqtt.md "Payload mapping"). */
import { describe, expect, it } from 'vitest';
import { fromMqttPayload, toMqttPayload } from '../../../broker/mqtt/payload-mapping';
import { scopeTopic, unscopeTopic } from '../../../broker/mqtt/realm-topics';

describe('payload mapping', () => {
  it('MQTT → tyo-mq: JSON values, plain text, empty, invalid UTF-8 as base64', () => {
    expect(fromMqttPayload(Buffer.from('{"a":[1,true]}'))).toEqual({ message: { a: [1, true] } });
    expect(fromMqttPayload(Buffer.from(' 42'))).toEqual({ message: 42 });
    expect(fromMqttPayload(Buffer.from('null'))).toEqual({ message: null });
    expect(fromMqttPayload(Buffer.from('nope'))).toEqual({ message: 'nope' });
    expect(fromMqttPayload(Buffer.from('{broken'))).toEqual({ message: '{broken' });
    expect(fromMqttPayload(Buffer.alloc(0))).toEqual({ message: '' });
    expect(fromMqttPayload(Buffer.from([0xc3, 0x28]))).toEqual({ message: 'wyg=', enc: 'base64' });
  });

  it('tyo-mq → MQTT: strings raw, base64 decoded, binary as is, other values as JSON', () => {
    expect(toMqttPayload('héllo').toString('utf8')).toBe('héllo');
    expect([...toMqttPayload('wyg=', 'base64')]).toEqual([0xc3, 0x28]);
    expect([...toMqttPayload(new Uint8Array([1, 2]))]).toEqual([1, 2]);
    expect(toMqttPayload({ a: 1 }).toString()).toBe('{"a":1}');
    expect(toMqttPayload(undefined).toString()).toBe('null');
  });
});

describe('realm topics', () => {
  it('scopes by the encoded realm, so realm names with / + # cannot collide or match', () => {
    expect(scopeTopic('a/b', 't')).toBe('a%2Fb/t');
    expect(scopeTopic('a', 'b/t')).toBe('a/b/t');
    expect(scopeTopic('r', '')).toBe('');
    expect(unscopeTopic('a%2Fb/t')).toEqual({ realm: 'a/b', topic: 't' });
    expect(unscopeTopic('$SYS')).toBeNull();
  });
});
