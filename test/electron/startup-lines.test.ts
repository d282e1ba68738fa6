/**
 * The lines `npm run console` prints at start (issue 27 item 1): the MQTT address beside the
 * socket.io one when the local broker's MQTT listener is on, and no MQTT line when it is off.
 * The whole process is checked in test/e2e/console.test.ts and console-mqtt-port.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startupLines } from '../../electron/web/startup-lines';

const consoleUrl = 'http://127.0.0.1:17353/#token=secret';

describe('startupLines', () => {
  it('names the MQTT listener under the broker, in one column', () => {
    expect(
      startupLines({ consoleUrl, broker: { host: '127.0.0.1', port: 17352 }, mqttPort: 1883 }),
    ).toEqual([
      'Console: http://127.0.0.1:17353/#token=secret',
      'Broker:  http://127.0.0.1:17352',
      'MQTT:    mqtt://127.0.0.1:1883',
    ]);
  });

  it('prints no MQTT line with the listener off (--broker-mqtt-port off)', () => {
    expect(
      startupLines({ consoleUrl, broker: { host: '127.0.0.1', port: 17352 }, mqttPort: null }),
    ).toEqual(['Console: http://127.0.0.1:17353/#token=secret', 'Broker:  http://127.0.0.1:17352']);
  });

  it('brackets an IPv6 host and prints only the link while the broker is down', () => {
    expect(startupLines({ consoleUrl, broker: { host: '::1', port: 5 }, mqttPort: 6 })).toEqual([
      `Console: ${consoleUrl}`,
      'Broker:  http://[::1]:5',
      'MQTT:    mqtt://[::1]:6',
    ]);
    expect(startupLines({ consoleUrl, broker: null, mqttPort: 6 })).toEqual([
      `Console: ${consoleUrl}`,
    ]);
  });
});
