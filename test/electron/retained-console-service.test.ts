/**
 * The console host's Retained methods (electron/services/retained-console-service.ts; issue
 * 27) over a real `ManagerClient`: against a Switchboard broker with MQTT, a retained message
 * listed, read in full and deleted (a filter delete refused until the filter is typed);
 * against a broker without MQTT, `mqtt-off`; against a broker without `list_retained` (a
 * socket.io server answering like the reference: `400 unknown management command`),
 * `unsupported`, asked once per client.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagerClient } from '../../electron/services/manager-client';
import { createRetainedService } from '../../electron/services/retained-console-service';
import { SignedAction } from '../../shared/admin-signature';
import { startBroker, type BrokerSettings } from '../helpers/broker-harness';
import { mqttClient } from '../helpers/mqtt-clients';
import { waitUntilAsync } from '../helpers/wait';
import { ADMIN_TOKEN, adminSettings } from '../broker/admin/management-client';

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

function service(url: string) {
  const client = new ManagerClient({ url, secret: ADMIN_TOKEN, timeoutMs: 3_000 });
  open.push(() => client.close());
  return createRetainedService({ pool: { get: () => client } });
}

describe('retained console service', () => {
  it('lists, reads in full and deletes retained messages', async () => {
    const h = await startBroker(
      adminSettings({ mqtt: { enabled: true, port: 0 } }) as BrokerSettings,
    );
    open.push(() => h.close());
    const device = await mqttClient(h);
    const long = 'y'.repeat(3_000);
    await device.publishAsync('cfg/long', long, { qos: 1, retain: true });
    await device.publishAsync('cfg/short', 'ok', { qos: 1, retain: true });
    const retained = service(h.url);
    const target = { connectionId: 'c1', realm: 'default' };
    await waitUntilAsync(
      async () => (await retained.listRetained(target)).entries.length === 2,
      'two retained messages listed',
    );
    const list = await retained.listRetained({ ...target, filter: 'cfg/+' });
    expect(list).toMatchObject({
      state: 'ok',
      realm: 'default',
      filter: 'cfg/+',
      nextCursor: null,
    });
    expect(list.entries[0]).toMatchObject({
      topic: 'cfg/long',
      sizeBytes: 3_000,
      truncated: true,
      payloadEncoding: 'utf8',
    });
    expect(list.entries[0]!.payload).toHaveLength(1_024);
    expect((await retained.getRetained({ ...target, topic: 'cfg/long' }))?.payload).toBe(long);
    expect(await retained.getRetained({ ...target, topic: 'cfg/none' })).toBeNull();

    expect(await retained.deleteRetained({ ...target, topic: 'cfg/long' })).toMatchObject({
      deleted: 1,
      summary: 'Deleted 1 retained message of cfg/long in default.',
    });
    await expect(
      retained.deleteRetained({ ...target, filter: 'cfg/#', confirmFilter: 'cfg' }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_VALIDATION' });
    expect(
      await retained.deleteRetained({ ...target, filter: 'cfg/#', confirmFilter: 'cfg/#' }),
    ).toMatchObject({
      deleted: 1,
      summary: 'Deleted 1 retained message matching cfg/# in default.',
    });
    expect((await retained.listRetained(target)).entries).toEqual([]);
  });

  it('reports a broker without MQTT as mqtt-off', async () => {
    const h = await startBroker(adminSettings());
    open.push(() => h.close());
    const list = await service(h.url).listRetained({ connectionId: 'c1', realm: 'default' });
    expect(list).toMatchObject({ state: 'mqtt-off', entries: [] });
  });

  it('reports a broker without list_retained as unsupported, asking it once', async () => {
    let asked = 0;
    const http = createServer();
    const io = new Server(http);
    io.on('connection', (socket) => {
      socket.on(SignedAction.AUTH_MANAGEMENT_COMMAND, (envelope, ack) => {
        if ((envelope as { body: { command: string } }).body.command === 'list_retained') asked++;
        ack({ ok: false, code: 400, message: 'unknown management command' });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    open.push(() => new Promise<void>((resolve) => void io.close(() => resolve())));
    const retained = service(`http://127.0.0.1:${(http.address() as AddressInfo).port}`);
    const input = { connectionId: 'ref', realm: 'default' };
    expect(await retained.listRetained(input)).toMatchObject({ state: 'unsupported', entries: [] });
    expect((await retained.listRetained(input)).state).toBe('unsupported');
    expect(asked).toBe(1);
  });
});
