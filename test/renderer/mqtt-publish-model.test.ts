/**
 * The MQTT publisher's pure parts (renderer/src/views/tap/): user properties typed as
 * `key=value` lines, the checks that keep **Publish over MQTT** disabled, and the result line.
 */
import { describe, expect, it } from 'vitest';
import {
  mqttDraftProblem,
  mqttPublishSummary,
} from '../../renderer/src/views/tap/mqtt-publish-form';
import {
  DEFAULT_MQTT_DRAFT,
  parseUserProperties,
} from '../../renderer/src/views/tap/publish-templates';

describe('MQTT publisher model', () => {
  it('reads user properties as key=value lines, keeping repeated keys and = in values', () => {
    expect(parseUserProperties('site=north\n\n  site = south \nflag\nurl=a=b\n=lost')).toEqual([
      { key: 'site', value: 'north' },
      { key: 'site', value: 'south' },
      { key: 'flag', value: '' },
      { key: 'url', value: 'a=b' },
    ]);
  });

  it('says what keeps a draft from being sent', () => {
    const draft = { ...DEFAULT_MQTT_DRAFT, realm: 'default' };
    expect(mqttDraftProblem(draft)).toBeNull();
    expect(mqttDraftProblem({ ...draft, realm: '*' })).toMatch(/realm/);
    expect(mqttDraftProblem({ ...draft, topic: 'a/+/b' })).toMatch(/wildcards/);
    expect(mqttDraftProblem({ ...draft, payload: '{oops' })).not.toBeNull();
    expect(mqttDraftProblem({ ...draft, format: 'text', payload: '{oops' })).toBeNull();
    expect(mqttDraftProblem({ ...draft, format: 'base64', payload: 'a$b' })).toMatch(/base64/);
    expect(mqttDraftProblem({ ...draft, expirySeconds: '1.5' })).toMatch(/expiry/);
    expect(mqttDraftProblem({ ...draft, port: 'x' })).toMatch(/MQTT port/);
    // Trial finding 24: 70000 reached the host, which answered "mqttPort: Too big".
    expect(mqttDraftProblem({ ...draft, port: '70000' })).toBe(
      'The MQTT port is a number from 1 to 65535',
    );
    expect(mqttDraftProblem({ ...draft, port: '0' })).toMatch(/1 to 65535/);
    expect(mqttDraftProblem({ ...draft, port: ' 1883 ' })).toBeNull();
  });

  it('names the acknowledgement each QoS gets', () => {
    const base = {
      realm: 'plant',
      topic: 't/1',
      retain: true,
      bytes: 3,
      acknowledged: true,
      endpoint: 'mqtt://127.0.0.1:1883',
      admittedAs: 'admin' as const,
      at: 0,
      subscribers: null,
      realmConfigured: null,
    };
    expect(mqttPublishSummary({ ...base, qos: 0, acknowledged: false })).toContain(
      'no acknowledgement',
    );
    expect(mqttPublishSummary({ ...base, qos: 1 })).toMatch(
      /3 B to t\/1 in plant, retained .*PUBACK/,
    );
    expect(mqttPublishSummary({ ...base, qos: 2 })).toContain('PUBCOMP received');
    expect(mqttPublishSummary({ ...base, qos: 1, subscribers: 0 })).toContain(
      ' — no subscriber received it · PUBACK',
    );
  });
});
