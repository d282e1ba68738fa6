/**
 * `list_requests` (issue 22 item 2; docs/management.md "Listing pending requests"): every
 * pending request oldest first, paged with a cursor that survives a decision, the count per
 * realm, and a realm manager key limited to its own realm.
 */
import { describe, expect, it } from 'vitest';
import { SignedAction } from '../../../shared/admin-signature';
import { ClientEvent } from '../../../shared/protocol-events';
import {
  ADMIN_TOKEN,
  signedCall,
  startAuthBroker,
  useAuthBroker,
} from '../../helpers/auth-clients';
import { captureLogs } from '../../support/log-capture';
import type { Harness } from '../../helpers/broker-harness';

const ALPHA_KEY = 'alpha-manager-key-51c0';
const ctx = useAuthBroker({
  tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
  realms: { alpha: { manager_key: ALPHA_KEY }, beta: {} },
});

interface Page {
  ok: boolean;
  code?: number;
  realm?: string | null;
  requests: Array<Record<string, unknown>>;
  total: number;
  per_realm: Record<string, number>;
  next_cursor: string | null;
}
const list = (h: Harness, body: Record<string, unknown> = {}, secret = ADMIN_TOKEN) =>
  signedCall(h, SignedAction.AUTH_MANAGEMENT_COMMAND, secret, {
    command: 'list_requests',
    ...body,
  }) as unknown as Promise<Page>;

async function ask(h: Harness, realm: string, clientId: string): Promise<string> {
  // Each request in its own millisecond, so their created_at order is the order asked.
  const t = Date.now();
  while (Date.now() === t) await new Promise((resolve) => setImmediate(resolve));
  const s = await h.connect();
  const reply = (await s.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
    realm,
    role: 'consumer',
    client_id: clientId,
    client_name: clientId,
    client_token: `${clientId}-token-9f8e7d`,
  })) as { request_id: string };
  return reply.request_id;
}

describe('list_requests', () => {
  it('pages every pending request oldest first with counts per realm', async () => {
    const { h } = ctx;
    const ids: string[] = [];
    for (const [realm, id] of [
      ['alpha', 'a-1'],
      ['beta', 'b-1'],
      ['alpha', 'a-2'],
      ['alpha', 'a-3'],
    ] as const) {
      ids.push(await ask(h, realm, id));
    }
    const first = await list(h, { limit: 2 });
    expect(first).toMatchObject({ ok: true, realm: null, total: 4 });
    expect(first.per_realm).toEqual({ alpha: 3, beta: 1 });
    expect(first.requests.map((r) => r.request_id)).toEqual(ids.slice(0, 2));
    expect(JSON.stringify(first)).not.toContain('-token-9f8e7d');
    expect(first.next_cursor).toEqual(expect.any(String));

    // The cursor stays valid when the request it names is decided meanwhile.
    const decided = await signedCall(h, SignedAction.AUTHORIZATION_DECIDE, ADMIN_TOKEN, {
      request_id: ids[1],
      approved: false,
    });
    expect(decided).toMatchObject({ ok: true });
    const second = await list(h, { limit: 2, cursor: first.next_cursor });
    expect(second.requests.map((r) => r.request_id)).toEqual(ids.slice(2));
    expect(second).toMatchObject({ total: 3, next_cursor: null });

    const alpha = await list(h, { realm: 'alpha' });
    expect(alpha).toMatchObject({ realm: 'alpha', total: 3, per_realm: { alpha: 3 } });
    expect(await list(h, { limit: 0 })).toMatchObject({ ok: false, code: 400 });
    expect(await list(h, { cursor: 7 })).toMatchObject({ ok: false, code: 400 });
  });

  it("a realm manager key sees its realm's requests only", async () => {
    const { h } = ctx;
    await ask(h, 'alpha', 'a-1');
    await ask(h, 'beta', 'b-1');
    const mine = await list(h, { realm: 'alpha' }, ALPHA_KEY);
    expect(mine).toMatchObject({ ok: true, realm: 'alpha', total: 1, per_realm: { alpha: 1 } });
    // Without `realm`, or for another realm, the key does not verify.
    expect(await list(h, {}, ALPHA_KEY)).toMatchObject({ ok: false, code: 401 });
    expect(await list(h, { realm: 'beta' }, ALPHA_KEY)).toMatchObject({ ok: false, code: 401 });
  });
});

describe('list_requests in the log', () => {
  it('is logged at debug when it succeeds (consoles poll it), at info when refused', async () => {
    const logs = captureLogs();
    const h = await startAuthBroker(
      { tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }] },
      {},
      { logger: logs.logger },
    );
    try {
      await list(h);
      await list(h, { limit: 0 });
      const lines = logs.lines.filter(
        (l) => l.msg === 'management command' && l.command === 'list_requests',
      );
      expect(lines.map((l) => [l.level, l.ok])).toEqual([
        [20, true],
        [30, false],
      ]);
    } finally {
      await h.close();
    }
  });
});
