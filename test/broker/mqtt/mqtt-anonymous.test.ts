/**
 * Clients admitted without credentials (a realm with `required: false`) can never take over an
 * authenticated client's session of the same realm (issue 14): neither a live one nor a stored
 * one, while clients with credentials keep MQTT's usual takeover by client id.
 */
import { describe, expect, it } from 'vitest';
import { useAuthBroker } from '../../helpers/auth-clients';
import {
  mqttClient,
  mqttConnecting,
  nextMessage,
  sessionPresent,
} from '../../helpers/mqtt-clients';
import { delay } from '../../helpers/wait';

const ctx = useAuthBroker(
  {
    realms: { open: { required: false } },
    tokens: [{ token: 'open-both', realm: 'open', role: 'both' }],
  },
  { mqtt: { enabled: true, port: 0 } },
);

const owner = { clientId: 'dev', username: 'open', password: 'open-both' };
const anonymous = { clientId: 'dev', username: 'open' };

describe('anonymous clients and sessions', () => {
  it('an anonymous client with the same id does not disconnect the authenticated one', async () => {
    const a = await mqttClient(ctx.h, owner);
    let closed = false;
    a.on('close', () => {
      closed = true;
    });
    const anon = await mqttClient(ctx.h, anonymous);
    await delay(150);
    expect(closed).toBe(false);
    expect(anon.connected).toBe(true);
    await a.subscribeAsync('t', { qos: 1 });
    const got = nextMessage(a);
    await anon.publishAsync('t', 'from anon', { qos: 1 });
    expect((await got).text).toBe('from anon');
  });

  it('an anonymous client never gets the stored session of an authenticated one', async () => {
    const a = await mqttClient(ctx.h, { ...owner, clean: false });
    await a.subscribeAsync('jobs/#', { qos: 1 });
    await a.endAsync();
    const p = await mqttClient(ctx.h, { username: 'open', password: 'open-both' });
    await p.publishAsync('jobs/1', 'for the owner', { qos: 1 });

    const intruder = mqttConnecting(ctx.h, { ...anonymous, clean: false });
    const stolen: string[] = [];
    intruder.on('message', (t) => stolen.push(t));
    expect(await sessionPresent(intruder)).toBe(false);
    await delay(200);
    expect(stolen).toEqual([]);

    const back = mqttConnecting(ctx.h, { ...owner, clean: false });
    const got = nextMessage(back);
    expect(await sessionPresent(back)).toBe(true);
    expect((await got).text).toBe('for the owner');
  });

  it('a second client with credentials takes the session over, as MQTT does', async () => {
    const a = await mqttClient(ctx.h, owner);
    const closed = new Promise<void>((resolve) => a.once('close', () => resolve()));
    await mqttClient(ctx.h, owner);
    await closed;
  });
});
