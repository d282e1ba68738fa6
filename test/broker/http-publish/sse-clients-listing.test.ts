/**
 * SSE streams in `GET /api/clients` (issue 28, console: "SSE streams in Clients"): an open
 * `GET /sub` stream is listed under its realm's `sse` with its event, open time and role —
 * never the token or its hash — and leaves the listing once the reader closes it.
 */
import { describe, expect, it } from 'vitest';
import { ClientsSchema, HttpPath } from '../../../shared/http-api';
import { startBroker, type Harness } from '../../helpers/broker-harness';
import { openSse } from '../../helpers/sse-reader';
import { waitUntilAsync } from '../../helpers/wait';
import { bearer, TOKENS } from './http-publish-fixtures';

const ADMIN = 'sse-clients-admin-token-0123456789abc';

async function list(h: Harness) {
  const res = await fetch(`${h.url}${HttpPath.CLIENTS}`, { headers: bearer(ADMIN) });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, clients: ClientsSchema.parse(JSON.parse(text)) };
}

describe('SSE streams in the clients listing', () => {
  it('lists an open stream under its realm until it closes', async () => {
    const h = await startBroker({
      http_api: { enabled: true },
      http_publish: { enabled: true },
      auth: {
        enabled: true,
        realms: { acme: {}, other: {} },
        tokens: [{ token: ADMIN, realm: '*', role: 'admin' }, ...TOKENS],
      },
    });
    try {
      expect((await list(h)).clients.realms.acme).toBeUndefined();
      const before = Date.now();
      const s = await openSse(h, '/sub/acme/notify', bearer('sub-acme'));
      expect(s.status).toBe(200);
      const { text, clients } = await list(h);
      expect(clients.realms.acme).toEqual({
        producers: [],
        consumers: [],
        sse: [{ event: 'notify', opened_at: expect.any(Number), role: 'consumer' }],
      });
      expect(clients.realms.acme!.sse![0]!.opened_at).toBeGreaterThanOrEqual(before);
      expect(clients.realms.other).toBeUndefined();
      expect(text).not.toContain('sub-acme');
      s.close();
      await waitUntilAsync(
        async () => (await list(h)).clients.realms.acme === undefined,
        'stream left the listing',
      );
    } finally {
      await h.close();
    }
  });
});
