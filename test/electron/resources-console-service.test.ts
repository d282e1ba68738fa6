/**
 * The console host's Resources method (electron/services/resources-console-service.ts; issue
 * 27) over a real `ManagerClient`: against a Switchboard broker, its reading checked by the
 * schema and passed on; against a broker without `resources` (a socket.io server answering
 * like the reference: `400 unknown management command`), `unsupported`, asked once per client;
 * against a broker whose reply has the wrong shape, an error instead of junk in the renderer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagerClient } from '../../electron/services/manager-client';
import { createResourcesService } from '../../electron/services/resources-console-service';
import { SignedAction } from '../../shared/admin-signature';
import { startBroker } from '../helpers/broker-harness';
import { ADMIN_TOKEN, adminSettings } from '../broker/admin/management-client';

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

function service(url: string) {
  const client = new ManagerClient({ url, secret: ADMIN_TOKEN, timeoutMs: 3_000 });
  open.push(() => client.close());
  return createResourcesService({ pool: { get: () => client } });
}

/** A socket.io server answering every management command with `reply`; counts `resources`. */
async function fakeBroker(reply: unknown): Promise<{ url: string; asked: () => number }> {
  const http = createServer();
  const io = new Server(http);
  let asked = 0;
  io.on('connection', (socket) => {
    socket.on(SignedAction.AUTH_MANAGEMENT_COMMAND, (envelope, ack) => {
      if ((envelope as { body: { command: string } }).body.command === 'resources') asked++;
      ack(reply);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  open.push(() => new Promise<void>((resolve) => void io.close(() => resolve())));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, asked: () => asked };
}

describe('resources console service', () => {
  it("passes a Switchboard broker's reading on", async () => {
    const h = await startBroker(adminSettings());
    open.push(() => h.close());
    const view = await service(h.url).getResources({ connectionId: 'c1' });
    expect(view.state).toBe('ok');
    expect(view.resources?.store.backend).toBe('memory');
    expect(view.resources?.memory.rss_bytes).toBeGreaterThan(0);
    expect(view.resources?.alarms).toEqual([]);
  });

  it('reports a broker without resources as unsupported, asking it once', async () => {
    const ref = await fakeBroker({ ok: false, code: 400, message: 'unknown management command' });
    const resources = service(ref.url);
    expect(await resources.getResources({ connectionId: 'ref' })).toMatchObject({
      state: 'unsupported',
      resources: null,
    });
    expect((await resources.getResources({ connectionId: 'ref' })).state).toBe('unsupported');
    expect(ref.asked()).toBe(1);
  });

  it('refuses a reply of the wrong shape', async () => {
    const odd = await fakeBroker({ ok: true, resources: { at: 'yesterday' } });
    await expect(service(odd.url).getResources({ connectionId: 'odd' })).rejects.toMatchObject({
      code: 'SWB_ERR_INTERNAL',
    });
  });
});
