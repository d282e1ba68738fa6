/**
 * The host side of the Clients detail panel (electron/services/client-control.ts, issue 27):
 * against a Switchboard broker, `client_detail` / `close_client` through a real ManagerClient;
 * against a broker without them (a socket.io server answering like the reference: `400 unknown
 * management command`), `available: false` with "This broker does not offer …".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { clientDetail, closeClient } from '../../electron/services/client-control';
import { ManagerClient } from '../../electron/services/manager-client';
import { SignedAction } from '../../shared/admin-signature';
import { ADMIN_TOKEN, loggedIn, startAuthBroker } from '../helpers/auth-clients';
import { waitFor } from '../helpers/wait';

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

function poolFor(url: string) {
  const client = new ManagerClient({ url, secret: ADMIN_TOKEN, timeoutMs: 3_000 });
  open.push(() => client.close());
  return { get: () => client };
}

describe('client control from the console host', () => {
  it('reads and closes a client of a Switchboard broker', async () => {
    const h = await startAuthBroker({
      tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
      realms: { fleet: { required: false } },
    });
    open.push(() => h.close());
    const device = await loggedIn(h, { realm: 'fleet', role: 'consumer' });
    const pool = poolFor(h.url);
    const target = { connectionId: 'c1', realm: 'fleet', clientId: device.id! };
    const read = await clientDetail(pool, target);
    expect(read).toMatchObject({
      available: true,
      detail: { realm: 'fleet', admitted_by: 'open-realm', online: true },
    });
    const gone = waitFor<string>(device, 'disconnect');
    expect(await closeClient(pool, target)).toMatchObject({ available: true });
    expect(await gone).toBe('io server disconnect');
    await expect(clientDetail(pool, { ...target, clientId: 'nobody' })).rejects.toMatchObject({
      code: 'SWB_ERR_NOT_FOUND',
    });
  });

  it('says "This broker does not offer …" for a broker without the commands', async () => {
    const http = createServer();
    const io = new Server(http);
    io.on('connection', (socket) => {
      socket.on(SignedAction.AUTH_MANAGEMENT_COMMAND, (_envelope, ack) =>
        ack({ ok: false, code: 400, message: 'unknown management command' }),
      );
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    open.push(() => new Promise<void>((resolve) => io.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const pool = poolFor(url);
    const target = { connectionId: 'c1', realm: 'fleet', clientId: 'abc' };
    expect(await clientDetail(pool, target)).toEqual({
      connectionId: 'c1',
      available: false,
      detail: null,
      message: 'This broker does not offer client_detail',
    });
    expect(await closeClient(pool, target)).toEqual({
      connectionId: 'c1',
      available: false,
      message: 'This broker does not offer close_client',
    });
  });
});
