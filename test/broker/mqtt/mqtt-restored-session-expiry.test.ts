/**
 * Session Expiry for MQTT 5 sessions restored after a restart (issue 24; MQTT 5.0 §3.1.2.11.2):
 * a persistent session with Session Expiry Interval N ends N seconds after its client's
 * connection closed, whether or not the broker restarted in between. Down longer than N: the
 * session is gone when the broker is back (Session Present 0, no backlog, its rows deleted from
 * the SQLite file). Back before N: the session resumes, or ends when the remaining time is up.
 */
import type { IClientOptions, MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, sessionPresent } from '../../helpers/mqtt-clients';
import { useRestartingBrokers } from '../../helpers/mqtt-restarts';
import { expectNothing, waitUntil } from '../../helpers/wait';

const brokers = useRestartingBrokers('expiry.sqlite');

const session = (clientId: string, expiry: number): IClientOptions => ({
  protocolVersion: 5,
  clientId,
  clean: false,
  properties: { sessionExpiryInterval: expiry },
});

/** Subscribes `opts`' session to `jobs/#`, leaves, and queues `jobs/1`; resolves when it left. */
async function leaveWithBacklog(h: Harness, opts: IClientOptions): Promise<number> {
  const first = await mqttClient(h, opts);
  await first.subscribeAsync('jobs/#', { qos: 1 });
  await first.endAsync();
  await waitUntil(() => h.broker.status().connectionsCurrent === 0, 'the client is gone');
  const left = Date.now();
  const p = await mqttClient(h, { protocolVersion: 5 });
  await p.publishAsync('jobs/1', 'queued', { qos: 1 });
  await p.endAsync();
  return left;
}

async function resume(
  h: Harness,
  opts: IClientOptions,
): Promise<{ client: MqttClient; present: boolean; got: string[] }> {
  const client = mqttConnecting(h, opts);
  const got: string[] = [];
  client.on('message', (_t, payload) => got.push(payload.toString('utf8')));
  return { client, present: await sessionPresent(client), got };
}

/** Until the stored rows of the session are written (queued copies are written in the background). */
async function stored(clientId: string): Promise<void> {
  await waitUntil(() => {
    const r = brokers.rows(clientId);
    return r.subscriptions > 0 && r.outgoing > 0;
  }, 'the session is in the file');
}

/** Whether the file holds no subscription or queued message of `clientId`. */
function gone(clientId: string): boolean {
  const r = brokers.rows(clientId);
  return r.subscriptions === 0 && r.outgoing === 0;
}

describe('a restored MQTT 5 session expires by its Session Expiry Interval', () => {
  it('down longer than N: gone at start-up, Session Present 0, its rows deleted', async () => {
    const opts = session('exp-down', 1);
    const h1 = await brokers.start();
    const left = await leaveWithBacklog(h1, opts);
    await stored('exp-down');
    await brokers.stop(h1);
    await waitUntil(() => Date.now() > left + 1_200, 'N seconds passed', 5_000);

    const h2 = await brokers.start();
    expect(brokers.rows('exp-down')).toMatchObject({ subscriptions: 0, outgoing: 0 });
    const again = await resume(h2, opts);
    expect(again.present).toBe(false);
    await expectNothing(again.client, 'message');
    expect(again.got).toEqual([]);
  });

  it('connected when the broker stopped: N counts from that close', async () => {
    const opts = session('exp-at-stop', 1);
    const h1 = await brokers.start();
    const c = await mqttClient(h1, opts);
    await c.subscribeAsync('jobs/#', { qos: 1 });
    await brokers.stop(h1);
    const closed = Date.now();
    expect(brokers.rows('exp-at-stop').subscriptions).toBeGreaterThan(0);
    await waitUntil(() => Date.now() > closed + 1_200, 'N seconds passed', 5_000);

    const h2 = await brokers.start();
    expect(brokers.rows('exp-at-stop').subscriptions).toBe(0);
    const again = await resume(h2, opts);
    expect(again.present).toBe(false);
  });

  it('back before N: the session resumes with its backlog', async () => {
    const opts = session('exp-back', 60);
    const h1 = await brokers.start();
    await leaveWithBacklog(h1, opts);
    await stored('exp-back');
    await brokers.stop(h1);

    const h2 = await brokers.start();
    const again = await resume(h2, opts);
    expect(again.present).toBe(true);
    await waitUntil(() => again.got.length >= 1, 'the backlog');
    expect(again.got).toEqual(['queued']);
  });

  it('back before N, not resumed: the session ends when the rest of N is up', async () => {
    const N = 3;
    const opts = session('exp-rest', N);
    const h1 = await brokers.start();
    const left = await leaveWithBacklog(h1, opts);
    await stored('exp-rest');
    await brokers.stop(h1);

    const h2 = await brokers.start();
    expect(Date.now()).toBeLessThan(left + N * 1_000);
    expect(brokers.rows('exp-rest').subscriptions).toBeGreaterThan(0);
    await waitUntil(() => gone('exp-rest'), 'the session is deleted', (N + 3) * 1_000);
    // Not before its time (the clock's and the store's commit granularity aside).
    expect(Date.now()).toBeGreaterThanOrEqual(left + N * 1_000 - 50);
    const again = await resume(h2, opts);
    expect(again.present).toBe(false);
    await expectNothing(again.client, 'message');
  });

  it('resumed and left again after a restart: N counts from the new close', async () => {
    const N = 2;
    const opts = session('exp-again', N);
    const h1 = await brokers.start();
    await leaveWithBacklog(h1, opts);
    await stored('exp-again');
    await brokers.stop(h1);

    const h2 = await brokers.start();
    const back = await resume(h2, opts);
    expect(back.present).toBe(true);
    await waitUntil(() => back.got.length >= 1, 'the backlog');
    await waitUntil(() => brokers.rows('exp-again').outgoing === 0, 'the backlog acknowledged');
    await back.client.endAsync();
    await waitUntil(() => h2.broker.status().connectionsCurrent === 0, 'the client is gone');
    const left = Date.now();
    await brokers.stop(h2);

    const h3 = await brokers.start();
    expect(brokers.rows('exp-again').subscriptions).toBeGreaterThan(0);
    await waitUntil(() => gone('exp-again'), 'the session is deleted', (N + 3) * 1_000);
    expect(Date.now()).toBeGreaterThanOrEqual(left + N * 1_000 - 50);
    expect((await resume(h3, opts)).present).toBe(false);
  });
});
