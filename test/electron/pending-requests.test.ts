/**
 * The console's view of the pending requests (electron/services/pending-requests.ts; issue 22
 * item 2): every request, paged, with counts per realm and the real total against a Switchboard
 * broker; against a broker without `list_requests` (a socket.io server answering like the
 * reference: `400 unknown management command`), the oldest per realm, marked incomplete.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagerClient } from '../../electron/services/manager-client';
import { oldestPending, pendingPage } from '../../electron/services/pending-requests';
import { SignedAction } from '../../shared/admin-signature';
import { ClientEvent } from '../../shared/protocol-events';
import { ADMIN_TOKEN, startAuthBroker } from '../helpers/auth-clients';
import type { Harness } from '../helpers/broker-harness';

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

function manager(url: string): ManagerClient {
  const client = new ManagerClient({ url, secret: ADMIN_TOKEN, timeoutMs: 3_000 });
  open.push(() => client.close());
  return client;
}

async function ask(h: Harness, realm: string, clientId: string): Promise<string> {
  const t = Date.now();
  while (Date.now() === t) await new Promise((resolve) => setImmediate(resolve));
  const s = await h.connect();
  const reply = (await s.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
    realm,
    client_id: clientId,
    client_name: clientId,
    client_token: `${clientId}-secret-token`,
  })) as { request_id: string };
  return reply.request_id;
}

describe('pending requests of a Switchboard broker', () => {
  it('pages every request oldest first with the total and the count per realm', async () => {
    const h = await startAuthBroker({
      tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
      realms: { fleet: {}, lab: {} },
    });
    open.push(() => h.close());
    const ids = [
      await ask(h, 'fleet', 'a'),
      await ask(h, 'lab', 'b'),
      await ask(h, 'fleet', 'c'),
      await ask(h, 'fleet', 'd'),
    ];
    const client = manager(h.url);
    const first = await pendingPage(client, 'c1', { limit: 3 });
    expect(first).toMatchObject({ total: 4, perRealm: { fleet: 3, lab: 1 }, complete: true });
    expect(first.requests.map((r) => r.requestId)).toEqual(ids.slice(0, 3));
    expect(JSON.stringify(first)).not.toContain('secret-token');
    const second = await pendingPage(client, 'c1', { limit: 3, cursor: first.nextCursor! });
    expect(second.requests.map((r) => r.requestId)).toEqual([ids[3]]);
    expect(second.nextCursor).toBeNull();
    expect(await pendingPage(client, 'c1', { realm: 'lab' })).toMatchObject({
      realm: 'lab',
      total: 1,
    });
    const oldest = await oldestPending(client);
    expect(oldest.total).toBe(4);
    expect(oldest.request?.request_id).toBe(ids[0]);
  });
});

describe('pending requests of a broker without list_requests', () => {
  it('falls back to the oldest request of each realm and says the page is incomplete', async () => {
    // The oldest pending request per realm filter, as a reference broker keeps them.
    const oldest: Record<string, Record<string, unknown>> = {
      '': { request_id: 'r-1', realm: 'fleet', created_at: '2026-01-01T00:00:00.000Z' },
      fleet: { request_id: 'r-1', realm: 'fleet', created_at: '2026-01-01T00:00:00.000Z' },
      lab: { request_id: 'r-2', realm: 'lab', created_at: '2026-01-01T00:00:01.000Z' },
    };
    let listAsked = 0;
    const http = createServer();
    const io = new Server(http);
    io.on('connection', (socket) => {
      socket.on(SignedAction.AUTH_MANAGEMENT_COMMAND, (envelope, ack) => {
        const { command } = (envelope as { body: { command: string } }).body;
        if (command === 'get') {
          ack({ ok: true, settings: { enabled: true, realms: { fleet: {}, lab: {} } } });
        } else {
          if (command === 'list_requests') listAsked++;
          ack({ ok: false, code: 400, message: 'unknown management command' });
        }
      });
      socket.on(SignedAction.AUTHORIZATION_NEXT, (envelope, ack) => {
        const realm = (envelope as { body: { realm?: string } }).body.realm ?? '';
        ack({ ok: true, request: oldest[realm] ?? null });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    open.push(() => new Promise<void>((resolve) => void io.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const client = manager(url);
    const page = await pendingPage(client, 'ref', {});
    expect(page).toMatchObject({
      total: 2,
      perRealm: { fleet: 1, lab: 1 },
      nextCursor: null,
      complete: false,
    });
    expect(page.requests.map((r) => r.requestId)).toEqual(['r-1', 'r-2']);
    expect(await oldestPending(client)).toMatchObject({ total: 1, request: { request_id: 'r-1' } });
    // Refused once: not asked again by this client (each refusal is a warning in its log).
    expect(listAsked).toBe(1);
  });
});
