/**
 * The console host's Queues methods (electron/services/queues-console-service.ts; issue 27)
 * over a real `ManagerClient`: against a Switchboard broker, a durable queue's counts and its
 * purge (refused without the consumer's name typed); against a broker without `list_queues`
 * (a socket.io server answering like the reference: `400 unknown management command`),
 * `supported: false`, asked once per client; `moveQueue` / `releaseInFlight` say "This broker
 * does not offer …".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagerClient } from '../../electron/services/manager-client';
import { createQueuesService } from '../../electron/services/queues-console-service';
import { SignedAction } from '../../shared/admin-signature';
import { produce, startBroker, subscribe, sync } from '../helpers/broker-harness';
import { waitUntilAsync } from '../helpers/wait';
import { ADMIN_TOKEN, adminSettings } from '../broker/admin/management-client';

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

function service(url: string) {
  const client = new ManagerClient({ url, secret: ADMIN_TOKEN, timeoutMs: 3_000 });
  open.push(() => client.close());
  return createQueuesService({ pool: { get: () => client } });
}

describe('queues console service', () => {
  it('lists a durable queue and purges it once the name is typed', async () => {
    const h = await startBroker(adminSettings());
    open.push(() => h.close());
    const worker = await h.consumer('worker');
    await subscribe(worker, 'worker', 'fleet', 'job', { durable: true });
    await h.disconnect(worker);
    const producer = await h.producer('fleet');
    for (let i = 0; i < 3; i++) produce(producer, 'fleet', 'job', { i });
    await sync(producer);
    const queues = service(h.url);
    await waitUntilAsync(
      async () => (await queues.listQueues({ connectionId: 'c1' })).queues[0]?.ready === 3,
      'three ready copies listed',
    );
    const list = await queues.listQueues({ connectionId: 'c1' });
    expect(list).toMatchObject({ supported: true, total: 1 });
    expect(list.queues[0]).toMatchObject({
      realm: 'default',
      consumer: 'worker',
      consumerId: 'worker',
      online: false,
      inFlight: 0,
    });
    const target = { connectionId: 'c1', realm: 'default', consumer: 'worker' };
    await expect(queues.purgeQueue({ ...target, confirmName: 'work' })).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
    });
    const peek = await queues.peekQueue({ ...target, limit: 2 });
    expect(peek.messages.map((m) => m.preview)).toEqual(['{"i":0}', '{"i":1}']);
    expect(peek.nextCursor).toBe('2');
    // A whole purge is typed out; discarding the copies chosen in Peek is not (issue 27).
    await expect(queues.purgeQueue(target)).rejects.toMatchObject({ code: 'SWB_ERR_VALIDATION' });
    expect(
      await queues.purgeQueue({ ...target, ids: [peek.messages[0]!.msgId, 'gone-since'] }),
    ).toMatchObject({
      purged: 1,
      notFound: 1,
      summary: 'Discarded 1 selected message of worker in default; 1 no longer queued.',
    });
    expect(await queues.purgeQueue({ ...target, confirmName: 'worker' })).toMatchObject({
      purged: 2,
      inFlightKept: 0,
      notFound: 0,
      summary: 'Purged 2 ready messages of worker in default.',
    });
    expect((await queues.listQueues({ connectionId: 'c1' })).queues[0]).toMatchObject({
      ready: 0,
    });
  });

  it('reports a broker without list_queues as unsupported, asking it once', async () => {
    let asked = 0;
    const http = createServer();
    const io = new Server(http);
    io.on('connection', (socket) => {
      socket.on(SignedAction.AUTH_MANAGEMENT_COMMAND, (envelope, ack) => {
        if ((envelope as { body: { command: string } }).body.command === 'list_queues') asked++;
        ack({ ok: false, code: 400, message: 'unknown management command' });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    open.push(() => new Promise<void>((resolve) => void io.close(() => resolve())));
    const queues = service(`http://127.0.0.1:${(http.address() as AddressInfo).port}`);
    expect(await queues.listQueues({ connectionId: 'ref' })).toMatchObject({
      supported: false,
      queues: [],
      total: 0,
    });
    expect((await queues.listQueues({ connectionId: 'ref' })).supported).toBe(false);
    expect(asked).toBe(1);
    const target = { connectionId: 'ref', realm: 'default', consumer: 'worker' };
    expect(await queues.moveQueue({ ...target, to: { consumer: 'other' } })).toMatchObject({
      available: false,
      moved: 0,
      summary: 'This broker does not offer move_queue.',
    });
    // Discarding chosen copies on a broker without discard_queued deletes nothing and says so.
    await expect(queues.purgeQueue({ ...target, ids: ['a'] })).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
      message:
        'This broker does not offer discard_queued (deleting chosen messages); nothing was deleted.',
    });
    expect(await queues.releaseInFlight(target)).toMatchObject({
      available: false,
      redelivered: 0,
      summary: 'This broker does not offer release_in_flight.',
    });
  });
});
