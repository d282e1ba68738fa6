/**
 * Back-pressure against bursts the broker accepted (issue 21 item 10): a stock polling producer
 * that flushes 300 × 200 KB at once (socket.io-client buffers emits made while disconnected and
 * sends them on connect, in POSTs of up to `max_http_buffer_size`) reaches a WebSocket consumer
 * that reads normally in full; a consumer whose TCP reading is paused still gets its plain copies
 * dropped, counted and logged (one line per socket and window, with the count).
 */
import { randomBytes } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { ClientEvent } from '../../../shared/protocol-events';
import { HttpPath } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type Harness,
} from '../../helpers/broker-harness';
import { jsProducerPayload, producePayload } from '../../helpers/stock-clients';
import { delay, waitUntil } from '../../helpers/wait';
import { captureLogs } from '../../support/log-capture';

const MESSAGES = 300;
const MESSAGE_BYTES = 200 * 1024;
const DROP_LOG = 'slow consumer: plain copies dropped';

/** A stock polling producer whose PRODUCER + `MESSAGES` PRODUCEs are sent in one flush on connect. */
function burstProducer(h: Harness, body: string): Socket {
  const p = io(h.url, {
    forceNew: true,
    reconnection: false,
    autoConnect: false,
    transports: ['polling'],
  });
  h.onClose(() => void p.disconnect());
  p.emit(ClientEvent.PRODUCER, jsProducerPayload('P'));
  for (let i = 0; i < MESSAGES; i++) {
    p.emit(ClientEvent.PRODUCE, producePayload('job', { i, body }, { from: 'P' }));
  }
  p.connect();
  return p;
}

async function drops(h: Harness): Promise<number> {
  const text = await (await fetch(`${h.url}${HttpPath.METRICS}`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${MetricName.SLOW_CONSUMER_DROPS_TOTAL}{realm="default"}`));
  return Number(line?.split(' ').pop() ?? 0);
}

/** Polls an async condition every 10 ms (the metrics endpoint) until it holds. */
async function until(condition: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await delay(10);
  }
}

describe('back-pressure and accepted bursts', () => {
  it('delivers a polling producer’s 300 × 200 KB flush to a consumer that is reading', async () => {
    const h = await startBroker({ http_api: { enabled: true } });
    try {
      const c = await h.consumer('c');
      await subscribe(c, 'c', 'P', 'job');
      const seen = new Set<number>();
      // Reading normally: each message takes the consumer 2 ms to handle.
      c.on(exactConsumeEvent('P', 'job'), (m: { message: { i: number } }) => {
        const until = performance.now() + 2;
        while (performance.now() < until);
        seen.add(m.message.i);
      });
      burstProducer(h, randomBytes((MESSAGE_BYTES * 3) / 4).toString('base64'));
      // Every copy either arrives or is counted as dropped.
      await until(async () => seen.size + (await drops(h)) >= MESSAGES, 'all accounted for');
      expect(await drops(h)).toBe(0);
      expect(seen.size).toBe(MESSAGES);
    } finally {
      await h.close();
    }
  }, 60_000);

  it('still drops, counts and logs (once per window) copies to a consumer that stopped reading', async () => {
    const log = captureLogs('warn');
    const h = await startBroker(
      { http_api: { enabled: true }, back_pressure: { disconnect_after_ms: 600_000 } },
      { logger: log.logger },
    );
    try {
      const slow = await h.consumer('slow');
      await subscribe(slow, 'slow', 'P', 'job');
      await subscribe(slow, 'slow', 'P2', 'job');
      const healthy = await h.consumer('healthy');
      await subscribe(healthy, 'healthy', 'P', 'job');
      await subscribe(healthy, 'healthy', 'P2', 'job');
      const slowId = slow.id!;
      h.freeze(slow);
      let received = 0;
      healthy.on(exactConsumeEvent('P', 'job'), () => received++);
      healthy.on(exactConsumeEvent('P2', 'job'), () => received++);
      const body = randomBytes((MESSAGE_BYTES * 3) / 4).toString('base64');
      burstProducer(h, body);
      await waitUntil(() => received === MESSAGES, `healthy got ${MESSAGES}`, 30_000);
      // It keeps producing; the frozen consumer drains nothing, so it is held to the cap.
      const p = await h.producer('P2');
      let sent = MESSAGES;
      await until(async () => {
        for (let i = 0; i < 10; i++) produce(p, 'P2', 'job', { i: sent++, body });
        await waitUntil(() => received === sent, `healthy got ${sent}`, 30_000);
        return (await drops(h)) > 0;
      }, 'a drop to the frozen consumer');
      expect(received).toBe(sent);
      const dropLines = (): typeof log.lines =>
        log.lines.filter((l) => l.msg?.startsWith(DROP_LOG));
      // The first drop is logged at once; the rest of the window's are summed in one line.
      expect(dropLines()[0]).toMatchObject({ socket: slowId, realm: 'default', dropped: 1 });
      const dropped = await drops(h);
      await h.close(); // writes the window's pending summary
      const lines = dropLines();
      expect(lines.every((l) => l.socket === slowId && l.realm === 'default')).toBe(true);
      expect(lines.reduce((n, l) => n + Number(l.dropped), 0)).toBe(dropped);
      expect(lines.length).toBeLessThan(dropped);
    } finally {
      await h.close();
    }
  }, 90_000);
});
