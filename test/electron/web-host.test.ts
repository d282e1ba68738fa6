import http from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { CLOSE_UNAUTHORIZED } from '../../electron/web/event-socket';
import {
  createWebHost,
  MAX_BODY_BYTES,
  type WebHost,
  type WebHostAddress,
} from '../../electron/web/web-host';
import {
  ConsoleChannel,
  LOCAL_CONNECTION_ID,
  LocalBrokerStatusSchema,
  OverviewSchema,
  type ConsoleSocketFrame,
} from '../../shared/console-api';
import { DEFINITIONS_MAX_BODY_BYTES } from '../../shared/console-api-definitions';
import { makeTempDir, type TempDir } from '../support/temp-dir';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: () => { ok: boolean; value?: unknown; error?: { code: string; message: string } };
}

describe('web host', () => {
  let dir: TempDir;
  let local: LocalConsole;
  let host: WebHost;
  let address: WebHostAddress;

  function request(
    method: string,
    pathname: string,
    { headers = {}, body }: { headers?: Record<string, string>; body?: string | Buffer } = {},
  ): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: address.port, method, path: pathname, headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: text,
              json: () => JSON.parse(text),
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  const auth = (): Record<string, string> => ({
    authorization: `Bearer ${host.secret}`,
    'content-type': 'application/json',
  });
  const call = (method: string, input: unknown, headers = auth()): Promise<Reply> =>
    request('POST', `${ConsoleChannel.CALL_PREFIX}${method}`, {
      headers,
      body: JSON.stringify(input),
    });

  beforeAll(async () => {
    dir = await makeTempDir();
    const staticDir = path.join(dir.path, 'static');
    await mkdir(staticDir);
    await writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>test page</title>');
    local = createLocalConsole({
      brokerPort: 0,
      dataDir: path.join(dir.path, 'data'),
      pollIntervalMs: 200,
    });
    await local.startBroker();
    host = createWebHost({ service: local.service, staticDir, port: 0 });
    address = await host.listen();
  });

  afterAll(async () => {
    await host.close();
    await local.close();
    await dir.remove();
  });

  it('prints a URL carrying the secret in the fragment only', () => {
    expect(address.url).toBe(`http://127.0.0.1:${address.port}/#token=${host.secret}`);
    expect(host.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('serves the UI with a strict CSP and security headers, confined to its directory', async () => {
    const page = await request('GET', '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('test page');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');

    for (const pathname of ['/%2e%2e/%2e%2e/package.json', '/missing.js']) {
      const missing = await request('GET', pathname);
      expect(missing.status).toBe(404);
      expect(missing.json().error?.code).toBe('SWB_ERR_NOT_FOUND');
    }
  });

  it('refuses requests naming another Host (DNS rebinding)', async () => {
    const reply = await call(
      'getLocalBroker',
      {},
      { ...auth(), host: `evil.example:${address.port}` },
    );
    expect(reply.status).toBe(403);
    expect(reply.json().error?.code).toBe('SWB_ERR_FORBIDDEN_ORIGIN');
  });

  it('requires the secret', async () => {
    const missing = await call('getLocalBroker', {}, { 'content-type': 'application/json' });
    expect(missing.status).toBe(401);
    expect(missing.json()).toEqual({
      ok: false,
      error: { code: 'SWB_ERR_UNAUTHORIZED', message: 'Missing or wrong console secret' },
    });
    const wrong = await call(
      'getLocalBroker',
      {},
      { ...auth(), authorization: `Bearer ${host.secret}x` },
    );
    expect(wrong.status).toBe(401);
  });

  it('refuses a foreign Origin even with the secret, and accepts its own', async () => {
    const foreign = await call('getLocalBroker', {}, { ...auth(), origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.json().error?.code).toBe('SWB_ERR_FORBIDDEN_ORIGIN');
    const own = await call(
      'getLocalBroker',
      {},
      { ...auth(), origin: `http://127.0.0.1:${address.port}` },
    );
    expect(own.status).toBe(200);
  });

  it('answers valid calls with results matching the contract', async () => {
    const broker = (await call('getLocalBroker', {})).json();
    expect(broker.ok).toBe(true);
    expect(LocalBrokerStatusSchema.parse(broker.value).state).toBe('running');

    // The console's manager session to its broker may still be connecting on a loaded machine.
    const overview = async () => {
      const reply = (await call('getOverview', { connectionId: LOCAL_CONNECTION_ID })).json();
      expect(reply.ok).toBe(true);
      return OverviewSchema.parse(reply.value);
    };
    await expect.poll(async () => (await overview()).reachable, { timeout: 10_000 }).toBe(true);
    const parsed = await overview();
    expect(parsed).toMatchObject({ connectionId: LOCAL_CONNECTION_ID, reachable: true });
    expect(parsed.local?.state).toBe('running');

    const empty = await request('POST', `${ConsoleChannel.CALL_PREFIX}getLocalBroker`, {
      headers: auth(),
    });
    expect(empty.json().ok).toBe(true);
  });

  it('answers bad input with SWB_ERR_VALIDATION', async () => {
    const cases = [
      await call('getOverview', {}),
      await call('getOverview', { connectionId: 42 }),
      await call('getLocalBroker', { unexpected: true }),
      await request('POST', `${ConsoleChannel.CALL_PREFIX}getLocalBroker`, {
        headers: auth(),
        body: '{oops',
      }),
      await request('POST', `${ConsoleChannel.CALL_PREFIX}getLocalBroker`, {
        headers: { ...auth(), 'content-type': 'text/plain' },
        body: '{}',
      }),
    ];
    for (const reply of cases) {
      expect(reply.status).toBe(400);
      expect(reply.json().error?.code).toBe('SWB_ERR_VALIDATION');
    }
    expect(cases[0]?.json().error?.message).toMatch(
      /^Invalid input for getOverview: connectionId:/,
    );
  });

  it('answers unknown methods, unknown connections and other verbs with catalogue errors', async () => {
    for (const name of ['dropEverything', 'toString', '__proto__']) {
      const reply = await call(name, {});
      expect(reply.status).toBe(404);
      expect(reply.json().error?.code).toBe('SWB_ERR_UNKNOWN_METHOD');
    }
    const unknown = await call('getOverview', { connectionId: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.json().error?.code).toBe('SWB_ERR_NOT_FOUND');
    const get = await request('GET', `${ConsoleChannel.CALL_PREFIX}getLocalBroker`, {
      headers: auth(),
    });
    expect(get.json().error?.code).toBe('SWB_ERR_NOT_FOUND');
  });

  it('refuses bodies over the size limit', async () => {
    const big = JSON.stringify({ connectionId: 'x'.repeat(MAX_BODY_BYTES) });
    const reply = await request('POST', `${ConsoleChannel.CALL_PREFIX}getOverview`, {
      headers: auth(),
      body: big,
    });
    expect(reply.status).toBe(413);
    expect(reply.json().error?.code).toBe('SWB_ERR_PAYLOAD_TOO_LARGE');
  });

  // Trial finding 15: a 600-realm definitions file (about 142 KB) was refused as too large.
  it('takes a definitions import far over 64 KiB, and refuses one over its own limit', async () => {
    const exported = await call('exportDefinitions', { connectionId: LOCAL_CONNECTION_ID });
    const doc = JSON.parse((exported.json().value as { text: string }).text) as {
      realms: Array<Record<string, unknown>>;
    };
    const template = doc.realms.find((r) => r.name === 'default')!;
    for (let i = 0; i < 600; i += 1) doc.realms.push({ ...template, name: `fleet-${i}` });
    const text = JSON.stringify(doc, null, 2);
    expect(text.length).toBeGreaterThan(2 * MAX_BODY_BYTES);
    const preview = await call('previewDefinitions', { connectionId: LOCAL_CONNECTION_ID, text });
    expect(preview.status).toBe(200);
    const value = preview.json().value as { diff: { counts: { added: number } } };
    expect(value.diff.counts.added).toBe(600);

    const huge = JSON.stringify({
      connectionId: LOCAL_CONNECTION_ID,
      text: 'x'.repeat(DEFINITIONS_MAX_BODY_BYTES),
    });
    const refused = await request('POST', `${ConsoleChannel.CALL_PREFIX}previewDefinitions`, {
      headers: auth(),
      body: huge,
    });
    expect(refused.status).toBe(413);
    expect(refused.json().error?.message).toContain(`at most ${DEFINITIONS_MAX_BODY_BYTES} bytes`);
  });

  describe('event socket', () => {
    const url = (): string => `ws://127.0.0.1:${address.port}${ConsoleChannel.EVENTS_PATH}`;

    function open(headers: Record<string, string> = {}): Promise<WebSocket> {
      return new Promise((resolve, reject) => {
        const ws = new WebSocket(url(), { headers });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    }

    function nextFrame(ws: WebSocket): Promise<ConsoleSocketFrame> {
      return new Promise((resolve) =>
        ws.once('message', (data) => resolve(JSON.parse(data.toString()))),
      );
    }

    function closed(ws: WebSocket): Promise<number> {
      return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
    }

    it('streams events after a correct hello', async () => {
      const ws = await open({ origin: `http://127.0.0.1:${address.port}` });
      try {
        const ready = nextFrame(ws);
        ws.send(JSON.stringify({ type: 'hello', token: host.secret }));
        expect(await ready).toEqual({ type: 'ready' });
        // Other streams (metricsPoint, localBrokerLog, …) may come first: only events follow.
        let frame = await nextFrame(ws);
        for (let i = 0; i < 50 && frame.type === 'event' && frame.event !== 'overview'; i++) {
          frame = await nextFrame(ws);
        }
        expect(frame.type).toBe('event');
        if (frame.type !== 'event') return;
        expect(frame.event).toBe('overview');
        expect(OverviewSchema.parse(frame.payload).connectionId).toBe(LOCAL_CONNECTION_ID);
      } finally {
        ws.close();
        await closed(ws);
      }
    });

    it("sends a connection's events only to clients watching it", async () => {
      const ws = await open({ origin: `http://127.0.0.1:${address.port}` });
      const frames: ConsoleSocketFrame[] = [];
      ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as ConsoleSocketFrame));
      const overviews = () =>
        frames.filter((frame) => frame.type === 'event' && frame.event === 'overview').length;
      try {
        ws.send(JSON.stringify({ type: 'hello', token: host.secret }));
        // Default: the local broker is watched.
        await expect.poll(overviews, { timeout: 5_000 }).toBeGreaterThan(0);
        ws.send(JSON.stringify({ type: 'watch', connectionIds: ['remote-x'] }));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const before = overviews();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(overviews()).toBe(before);
        ws.send(JSON.stringify({ type: 'watch', connectionIds: [LOCAL_CONNECTION_ID] }));
        await expect.poll(overviews, { timeout: 5_000 }).toBeGreaterThan(before);
      } finally {
        ws.close();
        await closed(ws);
      }
    });

    it('closes the socket on a wrong or malformed hello', async () => {
      for (const hello of [{ type: 'hello', token: 'wrong' }, { type: 'subscribe' }, 'not json']) {
        const ws = await open();
        const code = closed(ws);
        ws.send(typeof hello === 'string' ? hello : JSON.stringify(hello));
        expect(await code).toBe(CLOSE_UNAUTHORIZED);
      }
    });

    it('refuses the handshake from a foreign Origin', async () => {
      const error = await open({ origin: 'http://evil.example' }).catch((e: unknown) => e);
      expect(String(error)).toMatch(/403/);
    });
  });
});
