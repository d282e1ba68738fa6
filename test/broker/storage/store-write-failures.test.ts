/**
 * `tyo_mq_store_write_failures_total{op, reason}` and `/api/stats` `storage.write_failures`
 * (issue 23 item 2) on a real broker with a real SQLite store: the series start at 0, and a
 * store that can no longer write — its storage worker gone, as after a crash of that thread —
 * counts the failed ACK delete and the failed new copy, and `tyo_mq_enqueue_failed_total{realm}`
 * the copy lost (`spec/protocol-extensions.md` Note 7-D).
 */
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpPath, StatsSchema } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { ClientEvent, type DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  startBroker,
  subscribe,
  type Harness,
  type Socket,
} from '../../helpers/broker-harness';
import { producePayload } from '../../helpers/stock-clients';
import { waitFor, waitUntilAsync } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const JOB = exactConsumeEvent('fleet', 'job');

let h: Harness | null = null;
let tmp: TempDir | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
  await tmp?.remove();
  tmp = null;
});

/** The counter's value for `{op, reason}`, or null when the series is absent. */
async function failures(op: string, reason: string): Promise<number | null> {
  const text = await (await fetch(`${h!.url}${HttpPath.METRICS}`)).text();
  const prefix = `${MetricName.STORE_WRITE_FAILURES_TOTAL}{op="${op}",reason="${reason}"} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? null : Number(line.slice(prefix.length));
}

/** `tyo_mq_enqueue_failed_total{realm}` (Note 7-D), or null when the series is absent. */
async function lostCopies(realm: string): Promise<number | null> {
  const text = await (await fetch(`${h!.url}${HttpPath.METRICS}`)).text();
  const prefix = `${MetricName.ENQUEUE_FAILED_TOTAL}{realm="${realm}"} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? null : Number(line.slice(prefix.length));
}

async function statsFailures(): Promise<number | undefined> {
  const res = await fetch(`${h!.url}${HttpPath.STATS}`);
  return StatsSchema.parse(await res.json()).storage?.write_failures;
}

function confirm(p: Socket, message: unknown): Promise<{ ok: boolean; message?: string }> {
  return p
    .timeout(5_000)
    .emitWithAck(ClientEvent.PRODUCE, producePayload('job', message, { from: 'fleet' }));
}

describe('failed store writes', () => {
  it('are counted by kind and reason, from 0, in the metric and /api/stats', async () => {
    tmp = await makeTempDir('swb-write-failures-');
    h = await startBroker(
      { storage: 'sqlite', http_api: { enabled: true } },
      { dataDir: tmp.path, env: {} },
    );
    for (const reason of ['refused', 'store_full', 'error']) {
      expect(await failures('enqueue', reason)).toBe(0);
      expect(await failures('ack', reason)).toBe(0);
    }
    expect(await statsFailures()).toBe(0);

    const c = await h.consumer('w');
    // ACK timeout far beyond the test: no redelivery (another write) gets in the way.
    await subscribe(c, 'w', 'fleet', 'job', { durable: true, manualAck: true, ackTimeout: '60s' });
    const p = await h.producer('fleet');
    const delivered = waitFor<DeliveryEnvelope>(c, JOB);
    expect((await confirm(p, 'one')).ok).toBe(true);
    const env = await delivered;

    // The storage thread dies: every later write fails (the broker itself keeps running).
    const store = h.broker.store as unknown as { worker: { worker: Worker } };
    await store.worker.worker.terminate();

    c.emit(ClientEvent.ACK, { msgId: env.msgId });
    await waitUntilAsync(async () => (await failures('ack', 'error')) === 1, 'the ACK counted');
    const refused = await confirm(p, 'two');
    expect(refused.ok).toBe(false);
    expect(await failures('enqueue', 'error')).toBe(1);
    expect(await failures('enqueue', 'refused')).toBe(0);
    // Note 7-D: the copy lost is counted per realm too (a failed ACK delete loses nothing).
    expect(await lostCopies('default')).toBe(1);
    expect(await statsFailures()).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
