/**
 * What the Activity log records (issue 22 item 6), through the real console service on a real
 * local broker: a dead-letter replay and discard name their realm, the count and the ids, and
 * what they did (a replay also its trail: DLQ id → new id → realm, consumer, key); a test publish from the console is recorded (without its message); every entry
 * names its connection; `listActivity` filters by connection, command and outcome and says what
 * there is to filter by.
 */
import { describe, expect, it } from 'vitest';
import { SignedAction } from '../../shared/admin-signature';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import { ClientEvent, subscriptionKey } from '../../shared/protocol-events';
import { jsProducerPayload, producePayload } from '../helpers/stock-clients';
import { subscribeWithoutAck } from '../helpers/dead-lettering-consumer';
import { localConsoleFixture } from '../support/local-console-fixture';

const connectionId = LOCAL_CONNECTION_ID;

describe('Activity entries say what was done to what', () => {
  const fx = localConsoleFixture();

  const latest = async (action: string) =>
    (await fx.local.service.listActivity({ connectionId, actions: [action], limit: 1 })).entries[0];

  it('records replay and discard with realm, count, ids and result; publishes; names', async () => {
    const consumer = await fx.client();
    subscribeWithoutAck(consumer, 'stuck', 'orders', 'created', '100ms');
    // Wait for the subscription itself, not for a while.
    await expect
      .poll(
        async () => {
          const list = await fx.local.service.listClients({ connectionId });
          const realm = list.realms.find((r) => r.name === 'default');
          return realm?.consumers.find((c) => c.name === 'stuck')?.subscriptions.length ?? 0;
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    const producer = await fx.client();
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('orders'));
    for (const n of [1, 2, 3]) {
      producer.emit(ClientEvent.PRODUCE, producePayload('created', { n }, { from: 'orders' }));
    }
    const listed = async () =>
      (await fx.local.service.listDeadLetters({ connectionId, realm: 'default' })).entries;
    await expect.poll(async () => (await listed()).length, { timeout: 15_000 }).toBe(3);
    const ids = (await listed()).map((e) => e.id);
    consumer.close();

    await fx.local.service.replayDeadLetters({ connectionId, realm: 'default', ids: [ids[0]!] });
    expect(await latest('dlq_replay')).toMatchObject({
      connectionName: 'Local broker',
      target: 'default',
      params: { realm: 'default', count: 1, ids: ids[0] },
      ok: true,
      result: 'replayed 1',
    });
    // Its trail: the DLQ id → the re-queued copy's id, and where that copy waits (the consumer
    // is offline): the id is the one the queue holds.
    const key = subscriptionKey('orders', 'created');
    const { trail } = (await latest('dlq_replay'))!;
    expect(trail).toEqual([
      { from: ids[0], to: expect.any(String), realm: 'default', consumer: 'stuck', event: key },
    ]);
    const queued = await fx.local.service.peekQueue({
      connectionId,
      realm: 'default',
      consumer: 'stuck',
      key,
    });
    expect(queued.messages.map((m) => m.msgId)).toEqual([trail![0]!.to]);
    expect(trail![0]!.to).not.toBe(ids[0]);

    const gone = [ids[1]!, ids[2]!, 'msg-unknown'];
    await fx.local.service.discardDeadLetters({ connectionId, realm: 'default', ids: gone });
    expect(await latest('dlq_discard')).toMatchObject({
      connectionName: 'Local broker',
      target: 'default',
      params: { realm: 'default', count: 3, ids: gone.join(', ') },
      ok: true,
      result: 'discarded 2, 1 not found',
    });

    const published = await fx.local.service.publishMessage({
      connectionId,
      realm: 'default',
      event: 'hello',
      messageJson: '{"secret-looking":"payload-text"}',
      guaranteed: false,
    });
    const entry = await latest('console_publish');
    expect(entry).toMatchObject({
      origin: 'operator',
      connectionName: 'Local broker',
      target: 'default',
      params: { realm: 'default', event: 'hello', from: 'switchboard-console', guaranteed: false },
      ok: true,
    });
    expect(entry?.result).toBe(
      published.storedCopies === 0 ? 'delivered live, no durable copy' : expect.any(String),
    );
    expect(JSON.stringify(entry)).not.toContain('payload-text');
  }, 60_000);

  it('records whose authorization request was approved: client, realm and role', async () => {
    const requester = await fx.client();
    const reply = (await requester.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: 'default',
      role: 'consumer',
      client_id: 'agent-07',
      client_name: 'Agent 07',
      client_token: 'agent-07-token-0123456789abcdef',
    })) as { ok: boolean; request_id: string };
    expect(reply.ok).toBe(true);
    await fx.local.service.decideRequest({
      connectionId,
      requestId: reply.request_id,
      approved: true,
      role: 'consumer',
    });
    expect(await latest(SignedAction.AUTHORIZATION_DECIDE)).toMatchObject({
      connectionName: 'Local broker',
      target: reply.request_id,
      params: { request_id: reply.request_id, approved: true, role: 'consumer' },
      ok: true,
      result: 'Agent 07 (agent-07) in default as consumer',
    });
  });

  it('filters by command and outcome, and lists what there is to filter by', async () => {
    await expect(
      fx.local.service.removeRealm({
        connectionId,
        realm: 'never-there',
        confirmName: 'never-there',
      }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_NOT_FOUND' });
    const failed = await fx.local.service.listActivity({ connectionId, outcome: 'failed' });
    expect(failed.entries.length).toBeGreaterThan(0);
    expect(failed.entries.every((e) => !e.ok)).toBe(true);
    expect(failed.entries[0]).toMatchObject({ action: 'remove_realm', target: 'never-there' });
    const ok = await fx.local.service.listActivity({ connectionId, outcome: 'ok' });
    expect(ok.entries.every((e) => e.ok)).toBe(true);
    const dlq = await fx.local.service.listActivity({ actions: ['dlq_replay', 'dlq_discard'] });
    expect(dlq.entries.map((e) => e.action).sort()).toEqual(['dlq_discard', 'dlq_replay']);
    expect(dlq.facets.connections).toContainEqual({ id: connectionId, name: 'Local broker' });
    expect(dlq.facets.actions).toEqual(
      expect.arrayContaining(['console_publish', 'dlq_discard', 'dlq_replay', 'remove_realm']),
    );
    expect((await fx.local.service.listActivity({ connectionId: 'elsewhere' })).entries).toEqual(
      [],
    );
  });
});
