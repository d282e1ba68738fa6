/**
 * The MQTT conformance set (issue 24, test/support/mqtt-conformance/, modelled on the Paho
 * interoperability suites) against a real Switchboard broker with MQTT on: once with auth off
 * (anonymous clients, realm `default`) and once with auth on (a static token of realm `conf` as
 * password, the realm as username). `dollar_publish_refused` asserts our documented `$`-topic
 * policy (docs/mqtt.md, Roles) instead of Paho's expectation. A case the broker does not offer
 * (server topic aliases; a refused subscription with auth off) is reported skipped.
 *
 * The cases run concurrently (issue 26): each has its own `Scope` (client ids and topics under a
 * random prefix), and most of a case's time is protocol timers (keep alive, Will Delay, Session
 * and Message Expiry intervals of 1 s) and "nothing arrives" windows, which overlap.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  Skipped,
  conformanceCases,
  type ConformanceTarget,
} from '../../support/mqtt-conformance/conformance-set';
import { startAuthBroker } from '../../helpers/auth-clients';
import { startBroker, type Harness } from '../../helpers/broker-harness';
import { mqttPort } from '../../helpers/mqtt-clients';

const MQTT = { mqtt: { enabled: true, port: 0 } };

const modes: {
  mode: string;
  start: () => Promise<Harness>;
  target: (h: Harness) => ConformanceTarget;
}[] = [
  {
    mode: 'auth off',
    start: () => startBroker(MQTT),
    target: (h) => ({ host: '127.0.0.1', port: mqttPort(h), credentials: () => ({}) }),
  },
  {
    mode: 'auth on',
    start: () =>
      startAuthBroker(
        {
          realms: { conf: {} },
          tokens: [
            { token: 'conf-both-token', realm: 'conf', role: 'both' },
            { token: 'conf-producer-token', realm: 'conf', role: 'producer' },
          ],
        },
        MQTT,
      ),
    target: (h) => ({
      host: '127.0.0.1',
      port: mqttPort(h),
      credentials: () => ({ username: 'conf', password: 'conf-both-token' }),
      // A producer's SUBSCRIBE is granted 0x80 (docs/mqtt.md, Roles).
      subscribeRefused: {
        credentials: { username: 'conf', password: 'conf-producer-token' },
        filter: 'any/#',
      },
    }),
  },
];

for (const { mode, start, target } of modes) {
  describe.concurrent(`MQTT conformance set, ${mode}`, () => {
    let h: Harness | undefined;
    beforeAll(async () => {
      h = await start();
    });
    afterAll(async () => {
      await h?.close();
    });

    for (const c of conformanceCases) {
      it(`MQTT ${c.version === 4 ? '3.1.1' : '5'} ${c.name}`, async (ctx) => {
        try {
          await c.run(target(h!));
        } catch (err) {
          if (err instanceof Skipped) ctx.skip();
          throw err;
        }
      });
    }
  });
}
