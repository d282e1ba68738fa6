/**
 * `GET /api/realms/{realm}/dlq` paged and capped (issue 8 item 1): `limit`/`cursor`, a default
 * and a maximum page size, a byte cap per response; and every HTTP route ends in an answer,
 * even when building it fails (never an unhandled rejection, which would end the process).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSettings } from '../../broker/config/load-settings';
import { DLQ_DEFAULT_PAGE_SIZE, DLQ_MAX_PAGE_SIZE } from '../../broker/http/dlq-page';
import { createHttpApi, forbidden } from '../../broker/http/http-api';
import { HttpPath, dlqPath } from '../../shared/http-api';
import { startBroker, type Harness } from '../helpers/broker-harness';

interface Page {
  realm: string;
  entries: Array<{
    id: string;
    message: { message: unknown } | null;
    message_omitted_bytes?: number;
  }>;
  next_cursor: string | null;
}

/** Dead-letters `n` copies through the store, each carrying `message(i)`. */
async function deadLetters(
  h: Harness,
  n: number,
  message: (i: number) => unknown,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await h.broker.store.enqueue('default', 'fleet-job', {
      consumer: 'worker',
      payload: { event: 'job', message: message(i), from: 'fleet' },
      producer: 'fleet',
    });
    await h.broker.store.deadLetter(id, 'test');
    ids.push(id);
  }
  return ids;
}

async function getPage(
  h: Harness,
  query = '',
): Promise<{ status: number; body: Page; bytes: number }> {
  const res = await fetch(`${h.url}${dlqPath('default')}${query}`);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Page, bytes: Buffer.byteLength(text) };
}

/** Unhandled rejections seen while a test runs. */
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe('DLQ paging (§10.6, issue 8 item 1)', () => {
  it('pages with a default size, resumes by cursor, and lists every entry exactly once', async () => {
    const h = await startBroker({ http_api: { enabled: true } });
    try {
      const ids = await deadLetters(h, DLQ_DEFAULT_PAGE_SIZE + 30, (i) => i);
      const first = await getPage(h);
      expect(first.status).toBe(200);
      expect(first.body.entries).toHaveLength(DLQ_DEFAULT_PAGE_SIZE);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await getPage(h, `?cursor=${first.body.next_cursor}`);
      expect(second.body.entries).toHaveLength(30);
      expect(second.body.next_cursor).toBeNull();
      const seen = [...first.body.entries, ...second.body.entries].map((e) => e.id);
      expect(new Set(seen)).toEqual(new Set(ids));

      const small = await getPage(h, '?limit=7');
      expect(small.body.entries.map((e) => e.id)).toEqual(seen.slice(0, 7));
      // An entry removed between two reads does not shift the next page.
      await h.broker.store.discardDlq(seen[3]!);
      const next = await getPage(h, `?limit=7&cursor=${small.body.next_cursor}`);
      expect(next.body.entries.map((e) => e.id)).toEqual(seen.slice(7, 14));
    } finally {
      await h.close();
    }
  });

  it('refuses a limit outside 1…max and a cursor that is not one of ours with 400', async () => {
    const h = await startBroker({ http_api: { enabled: true } });
    try {
      for (const q of [
        '?limit=0',
        `?limit=${DLQ_MAX_PAGE_SIZE + 1}`,
        '?limit=abc',
        '?cursor=%%%',
      ]) {
        const res = await fetch(`${h.url}${dlqPath('default')}${q}`);
        expect(res.status, q).toBe(400);
        expect(await res.json()).toMatchObject({ ok: false, code: 400 });
      }
      expect((await getPage(h, `?limit=${DLQ_MAX_PAGE_SIZE}`)).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('caps a response at http_api.max_response_bytes; an entry larger than the cap is listed without its message', async () => {
    const cap = 8_192;
    const h = await startBroker({ http_api: { enabled: true, max_response_bytes: cap } });
    try {
      const ids = await deadLetters(h, 12, (i) =>
        i === 5 ? 'y'.repeat(20_000) : 'x'.repeat(1_000),
      );
      const seen: Page['entries'] = [];
      let cursor: string | null = '';
      let pages = 0;
      while (cursor !== null) {
        const page = await getPage(h, cursor ? `?cursor=${cursor}` : '');
        expect(page.status).toBe(200);
        // The entries' JSON stays under the cap (the envelope adds a few dozen bytes).
        expect(page.bytes).toBeLessThan(cap + 200);
        expect(page.body.entries.length).toBeGreaterThan(0);
        seen.push(...page.body.entries);
        cursor = page.body.next_cursor;
        pages++;
      }
      expect(pages).toBeGreaterThan(1);
      expect(seen.map((e) => e.id)).toEqual(ids);
      const big = seen[5]!;
      expect(big.message).toBeNull();
      expect(big.message_omitted_bytes).toBeGreaterThan(20_000);
      expect(seen[4]!.message).toMatchObject({ message: 'x'.repeat(1_000) });
    } finally {
      await h.close();
    }
  });
});

describe('HTTP routes answer their own failures (issue 8 item 1)', () => {
  let server: Server | null = null;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = null;
  });

  /** A real HTTP server around the API whose dependencies fail in the given ways. */
  async function serve(failing: {
    listDlq?: () => Promise<never[]>;
    metrics?: () => Promise<{ contentType: string; body: string }>;
    stats?: () => never;
  }): Promise<{ url: string; errors: unknown[] }> {
    const errors: unknown[] = [];
    const api = createHttpApi({
      settings: () => parseSettings({ http_api: { enabled: true } }),
      health: () => ({ status: 'ok', version: 't', uptime_seconds: 0, node_id: null }),
      ready: () => ({
        ready: true,
        draining: false,
        checks: { listeners: 'ok', store: 'ok', redis: 'ok', catch_up: 'ok' },
      }),
      stats: failing.stats ?? (() => ({ realms: {}, connections_current: 0 })),
      clients: () => ({ realms: {} }),
      metrics: failing.metrics ?? (async () => ({ contentType: 'text/plain', body: '' })),
      listDlq: failing.listDlq ?? (async () => []),
      onError: (err) => errors.push(err),
      admit: () => true,
    });
    server = createServer((req, res) => {
      if (!api(req, res)) forbidden(res);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, errors };
  }

  it('answers 500 when serialising the DLQ throws (the V8 string-limit crash), and keeps serving', async () => {
    const poisoned = {
      id: 'm1',
      dead_lettered_at: '2026-01-01T00:00:00.000Z',
      toJSON() {
        throw new RangeError('Invalid string length');
      },
    };
    const { url, errors } = await serve({ listDlq: async () => [poisoned] as never[] });
    const res = await fetch(`${url}${dlqPath('default')}`);
    // The entry is listed as omitted rather than crashing the page.
    expect(res.status, JSON.stringify(errors.map(String))).toBe(200);
    const body = (await res.json()) as Page;
    expect(body.entries[0]).toMatchObject({ id: 'm1', message: null });
    expect((await fetch(`${url}${HttpPath.HEALTH}`)).status).toBe(200);
    expect(errors).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it('answers 500 for a rejected store read, a failing metrics render and a throwing stats call', async () => {
    const { url, errors } = await serve({
      listDlq: () => Promise.reject(new Error('store closed')),
      metrics: () => Promise.reject(new Error('boom')),
      stats: () => {
        throw new Error('registry mid-change');
      },
    });
    for (const path of [dlqPath('default'), HttpPath.METRICS, HttpPath.STATS]) {
      const res = await fetch(`${url}${path}`);
      expect(res.status, path).toBe(500);
      expect(await res.json()).toMatchObject({ ok: false, code: 500 });
    }
    expect(errors).toHaveLength(3);
    expect(unhandled).toEqual([]);
  });
});
