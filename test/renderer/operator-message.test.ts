/**
 * The renderer's error wording (renderer/src/operator-message.ts, trial finding 24): the host's
 * "Invalid input for <method>: …" and the broker's "Broker refused <action> (<status>): …" read
 * as what to check; other texts are left as they are.
 */
import { describe, expect, it } from 'vitest';
import { operatorMessage } from '../../renderer/src/operator-message';

describe('operatorMessage', () => {
  it.each([
    [
      'Invalid input for testConnectionDraft: url: must be an http://, https://, ws:// or wss:// URL with a host',
      'Check the URL — must be an http://, https://, ws:// or wss:// URL with a host.',
    ],
    [
      'Invalid input for publishMqtt: mqttPort: Too big: expected number to be <=65535',
      'Check the MQTT port — at most 65535.',
    ],
    [
      'Invalid input for publishMqtt: realm: Too small: expected string to have >=1 characters; mqttPort: Invalid input: expected int, received number',
      'Check the realm — cannot be empty; the MQTT port — a whole number.',
    ],
    [
      'Invalid input for tapStart: target.pattern: Too big: expected string to have <=1024 characters',
      'Check the pattern — at most 1024 characters.',
    ],
    [
      'Broker refused AUTH_MANAGEMENT_COMMAND (401): Invalid manager proof',
      "The broker refused the admin token (401): check the connection's token or manager key",
    ],
    [
      'Broker refused add_realm (409): realm already exists',
      'The broker refused “add_realm” (409): realm already exists',
    ],
    [
      'Broker refused AUTH_MANAGEMENT_COMMAND (403): realm outside the manager scope',
      'The broker does not allow the management command (403): realm outside the manager scope',
    ],
    [
      'The broker did not confirm the message within 5 s',
      'The broker did not confirm the message within 5 s',
    ],
  ])('words %j for an operator', (raw, shown) => {
    expect(operatorMessage(raw)).toBe(shown);
  });
});
