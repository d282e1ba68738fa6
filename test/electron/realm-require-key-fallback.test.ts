/**
 * "Require key" on a broker without Switchboard's `set_realm_require_key` (issue 27): a socket.io
 * server answering like the reference (`get` with a keyed realm, `400 unknown management
 * command` for the extension). The console says the broker does not offer it and sends nothing
 * that would rotate or clear the key (the reference's `set_realm_key` changes `require_key` only
 * together with the key).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { ActivityLog } from '../../electron/services/activity-log';
import { ManagerClient } from '../../electron/services/manager-client';
import type { ManagerPool } from '../../electron/services/manager-pool';
import { createRealmsConsoleService } from '../../electron/services/realms-console-service';
import { SignedAction } from '../../shared/admin-signature';
import { ADMIN_TOKEN } from '../broker/admin/management-client';

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

describe('require key on a broker without set_realm_require_key', () => {
  it('says so and leaves the key alone', async () => {
    const sent: string[] = [];
    const http = createServer();
    const io = new Server(http);
    io.on('connection', (socket) => {
      socket.on(SignedAction.AUTH_MANAGEMENT_COMMAND, (envelope, ack) => {
        const { command } = (envelope as { body: { command: string } }).body;
        sent.push(command);
        if (command === 'get') {
          ack({
            ok: true,
            settings: {
              enabled: true,
              realms: { fleet: { key_configured: true, require_key: true } },
            },
          });
        } else ack({ ok: false, code: 400, message: 'unknown management command' });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    open.push(() => new Promise<void>((resolve) => void io.close(() => resolve())));
    const client = new ManagerClient({
      url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
      secret: ADMIN_TOKEN,
      timeoutMs: 3_000,
    });
    open.push(() => client.close());
    const realms = createRealmsConsoleService({
      pool: { get: () => client } as unknown as ManagerPool,
      activity: new ActivityLog({ dataDir: null }),
    });
    await expect(
      realms.setRealmFlag({
        connectionId: 'ref',
        realm: 'fleet',
        flag: 'keyRequired',
        value: false,
      }),
    ).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
      message: expect.stringContaining('This broker does not offer changing "require key" alone'),
    });
    // Never set_realm_key: on this broker it would have cleared the key.
    expect(sent).toEqual(['get', 'set_realm_require_key']);
  });
});
