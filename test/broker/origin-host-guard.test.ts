/**
 * Browsers and `Host` names (issue 8 item 13, issue 9's socket.io settings): a page from
 * another site cannot use the broker through socket.io (`cors.origin`, default: no browser
 * origin), DNS rebinding cannot reach the HTTP API or socket.io (`Host` check), and clients
 * that send no `Origin` — the stock Node and Python clients — keep working. Also the socket.io
 * server settings `ping_interval`, `ping_timeout`, `allow_eio3`.
 */
import { request } from 'node:http';
import { io, type Socket } from 'socket.io-client';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../broker/config/load-settings';
import { HttpPath } from '../../shared/http-api';
import { startBroker, type Harness } from '../helpers/broker-harness';
import { Eio3Client } from '../helpers/eio3-client';

/** Status of a socket.io WebSocket handshake with the given headers (101 = accepted). */
function wsHandshake(h: Harness, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${h.port}/socket.io/?EIO=4&transport=websocket`, {
      headers,
    });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', reject);
  });
}

/** Status of a plain HTTP GET with the given headers (Host included, which fetch cannot set). */
function get(h: Harness, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: h.port, path, headers: { connection: 'close', ...headers } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once('error', reject);
    req.end();
  });
}

const POLL = '/socket.io/?EIO=4&transport=polling';

/** A socket.io-client connection sending `origin` (as a browser page would). */
function connectWithOrigin(h: Harness, origin: string): Promise<Socket> {
  const s = io(h.url, {
    forceNew: true,
    reconnection: false,
    transports: ['websocket'],
    extraHeaders: { origin },
  });
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', (err) => {
      s.close();
      reject(err);
    });
  });
}

describe('browser origins on socket.io (cors)', () => {
  it('refuses a browser origin by default, on WebSocket and polling, and accepts clients without Origin', async () => {
    const h = await startBroker({});
    try {
      expect(await wsHandshake(h, { origin: 'https://evil.example' })).not.toBe(101);
      expect(await get(h, POLL, { origin: 'https://evil.example' })).toBe(403);
      expect(await wsHandshake(h, {})).toBe(101);
      expect(await get(h, POLL, {})).toBe(200);
      await expect(connectWithOrigin(h, 'https://evil.example')).rejects.toThrow();
      // The stock clients send no Origin.
      const c = await h.consumer('worker');
      expect(c.connected).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('accepts exactly the origins listed in cors.origin, and every origin with "*"', async () => {
    const listed = await startBroker({ cors: { origin: ['https://app.example:8443'] } });
    const open = await startBroker({ cors: { origin: '*' } });
    try {
      const s = await connectWithOrigin(listed, 'https://app.example:8443');
      expect(s.connected).toBe(true);
      s.close();
      expect(await wsHandshake(listed, { origin: 'https://app.example' })).not.toBe(101);
      expect(await wsHandshake(listed, { origin: 'http://app.example:8443' })).not.toBe(101);
      expect(await wsHandshake(open, { origin: 'https://anything.example' })).toBe(101);
    } finally {
      await listed.close();
      await open.close();
    }
  });

  it('validates cors.origin and names the key', () => {
    for (const origin of ['app.example', 'https://app.example/path', 'ftp://x.example', true]) {
      expect(() => parseSettings({ cors: { origin } }), String(origin)).toThrow(/cors\.origin/);
    }
    expect(parseSettings({ cors: { origin: 'https://App.Example' } }).cors.origin).toEqual([
      'https://app.example',
    ]);
  });
});

describe('Host check (DNS rebinding)', () => {
  it('answers the HTTP API and socket.io only for loopback names, IP literals and allowed_hosts', async () => {
    const h = await startBroker({ http_api: { enabled: true }, allowed_hosts: ['broker.lan'] });
    try {
      for (const host of [
        `127.0.0.1:${h.port}`,
        `localhost:${h.port}`,
        `[::1]:${h.port}`,
        'broker.lan',
      ]) {
        expect(await get(h, HttpPath.STATS, { host }), host).toBe(200);
      }
      for (const path of [HttpPath.STATS, HttpPath.HEALTH, '/api/realms/default/dlq', POLL]) {
        expect(await get(h, path, { host: `rebind.evil.example:${h.port}` }), path).toBe(403);
      }
      expect(await wsHandshake(h, { host: `rebind.evil.example:${h.port}` })).not.toBe(101);
      expect(await get(h, POLL, { host: `localhost:${h.port}` })).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('refuses an allowed_hosts entry that is not a host name', () => {
    expect(() => parseSettings({ allowed_hosts: ['http://x.example'] })).toThrow(
      /allowed_hosts\.0/,
    );
  });
});

describe('socket.io server settings', () => {
  it('applies ping_interval and ping_timeout to the handshake', async () => {
    const h = await startBroker({ ping_interval: 2_500, ping_timeout: 4_000 });
    try {
      const s = await h.connect();
      // engine.io-client keeps the handshake's values under these (private) names.
      const engine = s.io.engine as unknown as { _pingInterval: number; _pingTimeout: number };
      expect([engine._pingInterval, engine._pingTimeout]).toEqual([2_500, 4_000]);
    } finally {
      await h.close();
    }
  });

  it('refuses Engine.IO v3 clients with allow_eio3: false, accepts them by default', async () => {
    const off = await startBroker({ allow_eio3: false });
    const on = await startBroker({});
    try {
      await expect(Eio3Client.connect(off.port)).rejects.toThrow();
      const client = await Eio3Client.connect(on.port);
      expect(client.connected).toBe(true);
      client.close();
    } finally {
      await off.close();
      await on.close();
    }
  });

  it('bounds the heartbeat settings by the longest timer delay, naming the key', () => {
    expect(() => parseSettings({ ping_interval: 2 ** 31 })).toThrow(/ping_interval/);
    expect(() => parseSettings({ ping_timeout: 0 })).toThrow(/ping_timeout/);
  });
});
