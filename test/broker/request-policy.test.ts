/**
 * The one request policy (issue 19): every request and upgrade of the broker's port — the
 * handshake, each polling GET/POST of a session, the WebSocket upgrade, the HTTP API — and the
 * MQTT-over-WebSocket listener pass the same Host and Origin check; JSONP is never served;
 * same-origin and loopback origins (the Python client, a page served from this machine) are
 * allowed; refusals are 403, counted and logged without flooding.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { io, type Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { HttpPath } from '../../shared/http-api';
import { ClientEvent } from '../../shared/protocol-events';
import { startBroker, type Harness } from '../helpers/broker-harness';
import { rejectedInputs, send, upgrade } from '../helpers/http-probe';

const POLL = '/socket.io/?EIO=4&transport=polling';
const EVIL = 'http://evil.example:8080';

/** An engine.io session opened by a client without `Origin`; resolves with its sid. */
async function openSession(h: Harness): Promise<string> {
  const reply = await send(h.port, POLL, {});
  expect(reply.status).toBe(200);
  return (JSON.parse(reply.body.slice(1)) as { sid: string }).sid;
}

/** A logger whose warn lines are kept. */
function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

function connect(h: Harness, origin?: string): Promise<Socket> {
  const s = io(h.url, {
    forceNew: true,
    reconnection: false,
    ...(origin && { extraHeaders: { origin } }),
  });
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', (err) => {
      s.close();
      reject(err);
    });
  });
}

describe('the request policy on the socket.io port', () => {
  it('checks every request of a session, not only the handshake: polling GET/POST and the upgrade', async () => {
    const h = await startBroker({ http_api: { enabled: true } });
    try {
      const sid = await openSession(h);
      const path = `${POLL}&sid=${sid}`;
      expect((await send(h.port, path, { origin: EVIL })).status).toBe(403);
      expect((await send(h.port, path, { origin: EVIL }, 'POST', '40')).status).toBe(403);
      const ws = `ws://127.0.0.1:${h.port}/socket.io/?EIO=4&transport=websocket&sid=${sid}`;
      expect(await upgrade(ws, { origin: EVIL })).toBe(403);
      // A new WebSocket session from the page is refused the same way.
      const fresh = `ws://127.0.0.1:${h.port}/socket.io/?EIO=4&transport=websocket`;
      expect(await upgrade(fresh, { origin: EVIL })).toBe(403);
      // The session itself (no Origin) is untouched: its next poll is served.
      const poll = await send(h.port, path, {}, 'POST', '40');
      expect(poll.status).toBe(200);
      expect(await rejectedInputs(h.port, 'forbidden_origin')).toBe(4);
    } finally {
      await h.close();
    }
  });

  it('never serves JSONP, even to a request without Origin (a <script> tag sends none)', async () => {
    const h = await startBroker({ http_api: { enabled: true }, cors: { origin: '*' } });
    try {
      const reply = await send(h.port, `${POLL}&j=0`, {});
      expect(reply.status).toBe(403);
      expect(reply.body).not.toContain('sid');
      const sid = await openSession(h);
      expect((await send(h.port, `${POLL}&sid=${sid}&j=0`, {})).status).toBe(403);
      expect(await rejectedInputs(h.port, 'jsonp')).toBe(2);
    } finally {
      await h.close();
    }
  });

  it('allows a same-origin Origin (the Python client) and loopback pages, with CORS headers for the latter', async () => {
    const h = await startBroker({});
    try {
      // python-socketio's WebSocket library sends Origin: http://<host:port> of the broker.
      const self = `http://127.0.0.1:${h.port}`;
      const ws = `ws://127.0.0.1:${h.port}/socket.io/?EIO=4&transport=websocket`;
      expect(await upgrade(ws, { origin: self })).toBe(101);
      expect((await send(h.port, POLL, { origin: self })).status).toBe(200);
      // Same origin means the request's own Host: the origin of another port is not it.
      expect(
        (await send(h.port, POLL, { origin: 'http://192.0.2.1:80', host: `192.0.2.9:${h.port}` }))
          .status,
      ).toBe(403);
      for (const page of ['http://localhost:5173', 'http://127.0.0.1:8000', 'http://[::1]:3000']) {
        const reply = await send(h.port, POLL, { origin: page });
        expect(reply.status, page).toBe(200);
        expect(reply.headers['access-control-allow-origin'], page).toBe(page);
        expect(await upgrade(ws, { origin: page }), page).toBe(101);
      }
      const refused = await send(h.port, POLL, { origin: EVIL });
      expect(refused.status).toBe(403);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      // A stock client sending a loopback Origin connects and is served.
      const s = await connect(h, 'http://localhost:5173');
      const ok = await s.timeout(2_000).emitWithAck(ClientEvent.PRODUCE, {
        event: 'e',
        message: 'm',
        from: 'p',
      });
      expect(ok).toMatchObject({ ok: true });
      s.close();
    } finally {
      await h.close();
    }
  });

  it('refuses a cross-site Origin on the HTTP API too, and "*" lets every origin in', async () => {
    const closed = await startBroker({ http_api: { enabled: true } });
    const open = await startBroker({ http_api: { enabled: true }, cors: { origin: '*' } });
    try {
      expect((await send(closed.port, HttpPath.STATS, { origin: EVIL })).status).toBe(403);
      expect((await send(closed.port, HttpPath.STATS, {})).status).toBe(200);
      expect((await send(open.port, HttpPath.STATS, { origin: EVIL })).status).toBe(200);
      const s = await connect(open, EVIL);
      expect(s.connected).toBe(true);
      s.close();
      await expect(connect(closed, EVIL)).rejects.toThrow();
    } finally {
      await closed.close();
      await open.close();
    }
  });

  it('logs a refused origin once per window, naming the setting that would allow it', async () => {
    const { logger, lines } = capturingLogger();
    const h = await startBroker({ http_api: { enabled: true } }, { logger });
    try {
      for (let i = 0; i < 5; i++)
        expect((await send(h.port, POLL, { origin: EVIL })).status).toBe(403);
      await send(h.port, POLL, { host: `rebind.evil.example:${h.port}` });
      const refusals = lines.filter((l) => String(l.msg).startsWith('request refused'));
      expect(refusals).toHaveLength(2);
      expect(refusals[0]).toMatchObject({ reason: 'forbidden_origin', origin: EVIL });
      expect(String(refusals[0]!.allow_with)).toContain('cors.origin');
      expect(refusals[1]).toMatchObject({ reason: 'forbidden_host' });
      expect(String(refusals[1]!.allow_with)).toContain(
        '"rebind.evil.example" to the allowed_hosts',
      );
      expect(await rejectedInputs(h.port, 'forbidden_origin')).toBe(5);
      expect(await rejectedInputs(h.port, 'forbidden_host')).toBe(1);
    } finally {
      await h.close();
    }
  });
});

describe('the request policy on the MQTT-over-WebSocket listener', () => {
  it('refuses a cross-site page and a rebinding Host, and admits MQTT clients without Origin', async () => {
    const h = await startBroker({
      http_api: { enabled: true },
      mqtt: { enabled: true, port: 0, ws_port: 0 },
    });
    try {
      const url = `ws://127.0.0.1:${h.broker.status().mqttWsPort}/mqtt`;
      expect(await upgrade(url, { origin: EVIL }, 'mqtt')).toBe(403);
      expect(await upgrade(url, { host: 'rebind.evil.example' }, 'mqtt')).toBe(403);
      expect(await upgrade(url, {}, 'mqtt')).toBe(101);
      expect(await upgrade(url, { origin: 'http://localhost:8080' }, 'mqtt')).toBe(101);
      expect(await rejectedInputs(h.port, 'forbidden_origin')).toBe(1);
      expect(await rejectedInputs(h.port, 'forbidden_host')).toBe(1);
    } finally {
      await h.close();
    }
  });
});
