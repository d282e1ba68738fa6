/**
 * Back-pressure for a consumer that stops reading (issue 11): the bytes the broker queues for it
 * stay under the cap (measured by counting buffered bytes, not by time), plain copies past the cap
 * are dropped and counted, ACK copies stay in the store, a healthy consumer gets everything, and a
 * socket over the cap for too long is disconnected.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HttpPath } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  waitForConsumersOnline,
} from '../../helpers/broker-harness';
import { waitUntil } from '../../helpers/wait';

const CAP = 256 * 1024;
/** `max_http_buffer_size`: how far past the cap a consumer that is still draining may go. */
const MAX_FRAME = 64 * 1024;
const MESSAGE_BYTES = 16 * 1024;
const MESSAGES = 1000; // ~16 MB: more than the kernel socket buffers can hide on loopback
const BATCH = 20;

describe('back-pressure for slow consumers', () => {
  it('bounds the bytes queued to a consumer that never reads; healthy consumers get all', async () => {
    const h = await startBroker({
      http_api: { enabled: true },
      max_http_buffer_size: MAX_FRAME,
      back_pressure: { max_buffered_bytes: CAP, disconnect_after_ms: 600_000 },
    });
    try {
      const slow = await h.consumer('slow');
      await subscribe(slow, 'slow', 'P', 'job');
      const acked = await h.consumer('acked');
      await subscribe(acked, 'acked', 'P', 'job', { ack: true });
      const healthy = await h.consumer('healthy');
      await subscribe(healthy, 'healthy', 'P', 'job');
      const slowId = slow.id!;
      const ackedId = acked.id!;
      h.freeze(slow);
      h.freeze(acked);
      let received = 0;
      healthy.on(exactConsumeEvent('P', 'job'), () => received++);
      const p = await h.producer('P');
      let maxBuffered = 0;
      // Incompressible text, so per-message deflate does not hide the volume.
      const body = randomBytes((MESSAGE_BYTES * 3) / 4).toString('base64');
      for (let sent = 0; sent < MESSAGES; sent += BATCH) {
        for (let i = 0; i < BATCH; i++) produce(p, 'P', 'job', { i: sent + i, body });
        await waitUntil(() => received >= sent + BATCH, `healthy got ${sent + BATCH}`);
        maxBuffered = Math.max(
          maxBuffered,
          h.broker.bufferedBytes(slowId) ?? 0,
          h.broker.bufferedBytes(ackedId) ?? 0,
        );
      }
      expect(received).toBe(MESSAGES);
      // The ceiling (cap + max_http_buffer_size: a frozen consumer is taken for a reader until it
      // has drained nothing for stall_after_ms) plus at most one event-loop turn's burst: the
      // backlog is judged as it stood when the turn began (writes of the turn are corked until
      // its end), so a burst of BATCH copies produced in one turn may all be admitted.
      expect(maxBuffered).toBeGreaterThan(CAP / 2);
      expect(maxBuffered).toBeLessThanOrEqual(CAP + MAX_FRAME + BATCH * MESSAGE_BYTES);
      const text = await (await fetch(`${h.url}${HttpPath.METRICS}`)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${MetricName.SLOW_CONSUMER_DROPS_TOTAL}{realm="default"}`));
      expect(Number(line?.split(' ').pop())).toBeGreaterThan(MESSAGES / 5);
      // ACK copies the frozen consumer could not take wait in the store for its replay.
      // (Commits may trail the plain deliveries a little: poll.)
      let queued = 0;
      for (let t = 0; t < 100 && queued < MESSAGES; t++) {
        queued = await h.broker.store.countQueued('default');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(queued).toBe(MESSAGES);
    } finally {
      await h.close();
    }
  }, 60_000);

  it('disconnects a socket that stays over the cap too long', async () => {
    const h = await startBroker({
      back_pressure: { max_buffered_bytes: 64 * 1024, disconnect_after_ms: 200 },
    });
    try {
      const slow = await h.consumer('slow');
      await subscribe(slow, 'slow', 'P', 'job');
      h.freeze(slow);
      const p = await h.producer('P');
      const body = randomBytes(12 * 1024).toString('base64');
      let i = 0;
      await waitUntil(
        () => {
          for (let k = 0; k < 20; k++) produce(p, 'P', 'job', { i: i++, body });
          return h.stats().consumers.online === 0;
        },
        'slow consumer disconnected',
        15_000,
      );
      await waitForConsumersOnline(h, 0);
    } finally {
      await h.close();
    }
  }, 30_000);
});
