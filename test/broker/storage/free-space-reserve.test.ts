/**
 * The free-space reserve (issue 21 item 5), on real SQLite on a small real filesystem: a 20 MiB
 * tmpfs mounted by the test (root only; CI runs as root). Below the reserve, new durable copies
 * are refused with `SWB_ERR_STORAGE` while ACKs still commit and drain the store; once space is
 * freed, copies are accepted again; `/api/stats` and the metric say so. A write that fails with
 * `SQLITE_FULL` (reserve off) puts the store in the same refusing state.
 */
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpPath, StatsSchema, type StorageStatus } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { ClientEvent, ProtocolErrorCode } from '../../../shared/protocol-events';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import {
  exactConsumeEvent,
  startBroker,
  subscribe,
  type Harness,
} from '../../helpers/broker-harness';
import { fillLeaving, mountTmpfs, unmount } from '../../helpers/small-disk';
import { collect, delay, waitFor } from '../../helpers/wait';

const MiB = 1024 * 1024;
const RESERVE = 4 * MiB;

type Confirm = { ok: boolean; msgIds?: string[]; code?: string; message?: string };

/** Polls `read` until `ok(value)`; rejects with the last value after `timeoutMs`. */
async function until<T>(
  read: () => Promise<T> | T,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting until ${what}; last: ${JSON.stringify(v)}`);
    await delay(20);
  }
}

async function storageOf(h: Harness): Promise<StorageStatus | undefined> {
  const res = await fetch(`${h.url}${HttpPath.STATS}`);
  return StatsSchema.parse(await res.json()).storage;
}

async function refusingGauge(h: Harness, reason: string): Promise<number | null> {
  const text = await (await fetch(`${h.url}${HttpPath.METRICS}`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${MetricName.STORE_REFUSING_WRITES}{reason="${reason}"}`));
  return line === undefined ? null : Number(line.split(' ').pop());
}

describe('free-space reserve (SQLite on a 20 MiB tmpfs)', () => {
  it('refuses new durable copies below the reserve, lets ACKs drain the store, and recovers when space is freed', async (ctx) => {
    const dir = mountTmpfs(ctx);
    if (!dir) return;
    let h: Harness | undefined;
    try {
      h = await startBroker(
        {
          storage: 'sqlite',
          storage_options: { min_free_bytes: RESERVE },
          http_api: { enabled: true },
        },
        { dataDir: dir },
      );
      const JOB = exactConsumeEvent('fleet', 'job');
      const opts = { durable: true, manualAck: true } as const;
      const c1 = await h.consumer('w1');
      await subscribe(c1, 'w1', 'fleet', 'job', opts);
      c1.disconnect();
      const p = await h.producer('fleet');
      const send = (m: unknown) =>
        p.timeout(5000).emitWithAck(ClientEvent.PRODUCE, {
          event: 'job',
          message: m,
          from: 'fleet',
        }) as Promise<Confirm>;
      const stored = 50;
      for (let i = 0; i < stored; i++)
        expect((await send(`m${i}-${'x'.repeat(1000)}`)).ok).toBe(true);
      expect(await storageOf(h)).toMatchObject({ refusing_writes: false, reason: null });
      expect(await refusingGauge(h, 'low_free_space')).toBe(0);

      // Fill the disk to 1 MiB under the reserve: the store says so within a reading (≤ 1 s).
      const filler = fillLeaving(dir, 'filler.bin', RESERVE - MiB);
      const refusing = await until(
        () => storageOf(h!),
        (s) => s?.refusing_writes === true,
        'the store refuses writes',
      );
      expect(refusing).toMatchObject({ reason: 'low_free_space', reserve_bytes: RESERVE });
      expect(refusing!.free_bytes).toBeLessThan(RESERVE);
      expect(await refusingGauge(h, 'low_free_space')).toBe(1);
      expect(await refusingGauge(h, 'store_full')).toBe(0);

      // A new durable copy: refused with SWB_ERR_STORAGE (confirm), ERROR -8 without one.
      const refused = await send('refused');
      expect(refused).toMatchObject({ ok: false, code: 'SWB_ERR_STORAGE' });
      expect(refused.message).toMatch(/reserve/);
      const error = waitFor<{ code: number; message: string }>(p, 'ERROR');
      p.emit(ClientEvent.PRODUCE, { event: 'job', message: 'no-confirm', from: 'fleet' });
      expect(await error).toMatchObject({ code: ProtocolErrorCode.NOT_STORED });
      expect(await h.broker.store.countQueued('default')).toBe(stored);

      // ACKs of the stored copies still commit: the consumer drains the store.
      const c2 = await h.consumer('w1');
      const got = collect<{ msgId: string; message: unknown }>(c2, JOB, stored);
      await subscribe(c2, 'w1', 'fleet', 'job', opts);
      const copies = await got;
      expect(copies.map((e) => String(e.message).split('-')[0])).toEqual(
        Array.from({ length: stored }, (_, i) => `m${i}`),
      );
      for (const e of copies) c2.emit(ClientEvent.ACK, { msgId: e.msgId });
      await until(
        () => h!.broker.store.countQueued('default'),
        (n) => n === 0,
        'the store is drained',
      );

      // The operator frees space: new copies are accepted again.
      unlinkSync(filler);
      await until(
        () => storageOf(h!),
        (s) => s?.refusing_writes === false,
        'the store accepts writes',
      );
      expect(await refusingGauge(h, 'low_free_space')).toBe(0);
      const live = waitFor<{ message: unknown }>(c2, JOB);
      const accepted = await send('after');
      expect(accepted.ok).toBe(true);
      expect((await live).message).toBe('after');
    } finally {
      await h?.close();
      unmount(dir);
    }
  }, 30_000);

  it('treats SQLITE_FULL as refusing writes (reserve off) until a reading shows free space', async (ctx) => {
    const dir = mountTmpfs(ctx);
    if (!dir) return;
    const store = new SqliteStore({ filename: join(dir, 'full.sqlite'), minFreeBytes: 0 });
    const failed: string[] = [];
    store.observeWriteFailures((op, reason) => failed.push(`${op}/${reason}`));
    try {
      const envelope = (i: number) => ({ event: 'job', message: `${i}-${'y'.repeat(4000)}` });
      const first = await store.enqueue('r', 'job', {
        consumer: 'c',
        payload: envelope(0) as never,
        producer: 'p',
      });
      expect((await store.refreshStorageStatus()).refusing_writes).toBe(false);
      const filler = fillLeaving(dir, 'filler.bin', 0);
      // Writes until SQLite runs out of space (the reserve is off, so nothing stops them early).
      let failure: unknown = null;
      for (let i = 1; i < 10_000 && failure === null; i++) {
        await store
          .enqueue('r', 'job', { consumer: 'c', payload: envelope(i) as never, producer: 'p' })
          .catch((err: unknown) => (failure = err));
      }
      expect(failure).toMatchObject({ code: 'SWB_ERR_STORAGE' });
      expect(store.storageStatus()).toMatchObject({ refusing_writes: true, reason: 'store_full' });
      // Refused before the worker from now on, with a message that says why.
      await expect(
        store.enqueue('r', 'job', { consumer: 'c', payload: envelope(-1) as never, producer: 'p' }),
      ).rejects.toThrow(/full/);
      // Counted (issue 23 item 2): the write SQLite refused, then the copy refused before it.
      expect(failed).toEqual(['enqueue/store_full', 'enqueue/refused']);
      expect(store.storageStatus().write_failures).toBe(2);
      unlinkSync(filler);
      await until(
        () => store.refreshStorageStatus(),
        (s) => !s.refusing_writes,
        'the store accepts writes',
      );
      expect(await store.ack(first)).toBe(true);
      await store.enqueue('r', 'job', {
        consumer: 'c',
        payload: envelope(1) as never,
        producer: 'p',
      });
    } finally {
      await store.close();
      unmount(dir);
    }
  }, 30_000);
});
