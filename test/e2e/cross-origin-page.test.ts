/**
 * A web page the user opens must not read or publish on a local broker (issue 19 item 4): a
 * page on a non-loopback origin (`evil.test`, mapped to 127.0.0.1 in Chromium) tries JSONP
 * (a `<script>` tag, which sends no Origin), polling and WebSocket on socket.io and MQTT over
 * WebSocket, against a broker with `npm run broker`'s defaults (auth off) and one like the
 * console's (auth on, loopback). Nothing gets through and the refusals are counted. The same
 * page served from a loopback origin does get through: the control that shows the page's
 * probes can see success.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type Harness } from '../helpers/broker-harness';
import { rejectedInputs } from '../helpers/http-probe';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The page: probes run from the browser, results returned to the test. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>not a broker client</title>
<script>
window.probe = async (brokerPort, mqttPort) => {
  const broker = 'http://127.0.0.1:' + brokerPort;
  const out = {};
  // 1. JSONP: a script tag loads the handshake (engine.io v3 callback), no Origin is sent.
  window.___eio = [(packet) => { out.jsonpSid = String(packet).includes('sid'); }];
  out.jsonp = await new Promise((resolve) => {
    const s = document.createElement('script');
    s.src = broker + '/socket.io/?EIO=3&transport=polling&j=0&t=' + Date.now();
    s.onload = () => resolve('loaded');
    s.onerror = () => resolve('error');
    document.head.append(s);
  });
  // 2. Polling with a readable response (CORS).
  out.polling = await fetch(broker + '/socket.io/?EIO=4&transport=polling')
    .then((r) => r.text().then((t) => (t.includes('sid') ? 'read' : 'status ' + r.status)))
    .catch(() => 'error');
  // 3. WebSocket: connect to the default namespace and publish.
  out.websocket = await new Promise((resolve) => {
    const ws = new WebSocket('ws://127.0.0.1:' + brokerPort + '/socket.io/?EIO=4&transport=websocket');
    ws.onmessage = (m) => {
      if (String(m.data).startsWith('0')) ws.send('40');
      else if (String(m.data).startsWith('40')) {
        ws.send('42' + JSON.stringify(['PRODUCE', { event: 'forged', message: 'x', from: 'page' }]));
        setTimeout(() => { ws.close(); resolve('published'); }, 200);
      }
    };
    ws.onerror = () => resolve('error');
  });
  // 4. MQTT over WebSocket.
  out.mqtt = await new Promise((resolve) => {
    const ws = new WebSocket('ws://127.0.0.1:' + mqttPort + '/mqtt', 'mqtt');
    ws.onopen = () => { ws.close(); resolve('open'); };
    ws.onerror = () => resolve('error');
  });
  return out;
};
</script>`;

describe('a web page on another origin against a local broker', () => {
  let browser: Browser;
  let site: Server;
  let sitePort: number;

  beforeAll(async () => {
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-sync',
        '--disable-background-networking',
        '--host-resolver-rules=MAP evil.test 127.0.0.1',
      ],
    });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => site?.close(() => resolve()));
  });

  async function probe(origin: string, h: Harness): Promise<Record<string, unknown>> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(
        ([b, m]) =>
          (
            window as unknown as {
              probe: (b: number, m: number) => Promise<Record<string, unknown>>;
            }
          ).probe(b, m),
        [h.port, h.broker.status().mqttWsPort!] as const,
      );
    } finally {
      await page.close();
    }
  }

  const brokers = {
    'npm run broker defaults (auth off)': { auth: undefined, metrics_auth: true },
    'the console broker (auth on, loopback)': {
      auth: { enabled: true },
      // The counters are read from /api/metrics without the admin bearer.
      metrics_auth: false,
    },
  } as const;

  for (const [name, extra] of Object.entries(brokers)) {
    it(`reads and publishes nothing: ${name}`, async () => {
      const h = await startBroker({
        http_api: { enabled: true, metrics_auth: extra.metrics_auth },
        mqtt: { enabled: true, port: 0, ws_port: 0 },
        ...(extra.auth && { auth: extra.auth }),
      });
      try {
        const out = await probe(`http://evil.test:${sitePort}`, h);
        expect(out).toEqual({
          jsonp: 'error',
          polling: 'error',
          websocket: 'error',
          mqtt: 'error',
        });
        expect(h.broker.status().produced).toBe(0);
        expect(await rejectedInputs(h.port, 'jsonp')).toBe(1);
        // Polling, WebSocket (socket.io) and MQTT over WebSocket.
        expect(await rejectedInputs(h.port, 'forbidden_origin')).toBe(3);
      } finally {
        await h.close();
      }
    }, 30_000);
  }

  it('the same page from a loopback origin gets through (the probes can see success)', async () => {
    const h = await startBroker({
      http_api: { enabled: true },
      mqtt: { enabled: true, port: 0, ws_port: 0 },
    });
    try {
      const out = await probe(`http://127.0.0.1:${sitePort}`, h);
      expect(out).toMatchObject({
        jsonp: 'error',
        polling: 'read',
        websocket: 'published',
        mqtt: 'open',
      });
      await expect.poll(() => h.broker.status().produced).toBe(1);
    } finally {
      await h.close();
    }
  }, 30_000);
});
