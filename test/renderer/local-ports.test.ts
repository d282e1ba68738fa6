/** How the local broker's MQTT ports read in the Local broker view and on the Overview. */
import { describe, expect, it } from 'vitest';
import { mqttPortText, portsDetail } from '../../renderer/src/views/local-broker/local-ports';

describe('local broker ports', () => {
  it('shows the MQTT port once known, off for a running broker without MQTT, else a dash', () => {
    expect(mqttPortText({ state: 'running', mqttPort: 1883, mqttWsPort: null })).toBe('1883');
    expect(mqttPortText({ state: 'stopped', mqttPort: 1883, mqttWsPort: null })).toBe('1883');
    expect(mqttPortText({ state: 'running', mqttPort: null, mqttWsPort: null })).toBe('off');
    expect(mqttPortText({ state: 'starting', mqttPort: null, mqttWsPort: null })).toBe('—');
    expect(mqttPortText(null)).toBe('—');
  });

  it('puts the MQTT and MQTT WebSocket ports under the socket.io port', () => {
    expect(portsDetail({ state: 'running', mqttPort: 1883, mqttWsPort: null })).toBe(
      'socket.io · MQTT 1883',
    );
    expect(portsDetail({ state: 'running', mqttPort: 1883, mqttWsPort: 8083 })).toBe(
      'socket.io · MQTT 1883 · MQTT WebSocket 8083',
    );
  });
});
