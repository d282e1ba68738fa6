/**
 * `GET /ready` follows the SQLite store's free-space reserve (issue 23), on real SQLite on a
 * 20 MiB tmpfs (test/helpers/small-disk.ts): 200 on a broker with room; 503 with
 * `store: "low free space"` once the disk is filled below the reserve, while `/health` stays
 * 200; 200 again once space is freed. With the reserve off, a write that fails for lack of
 * space (`SQLITE_FULL`) turns it 503 with `store: "store full"` until space is freed.
 */
import { unlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HttpPath, ReadinessReason, ReadinessSchema } from '../../../shared/http-api';
import { ClientEvent } from '../../../shared/protocol-events';
import { startBroker, subscribe, type Harness } from '../../helpers/broker-harness';
import { fillLeaving, mountTmpfs, unmount } from '../../helpers/small-disk';
import { waitUntilAsync } from '../../helpers/wait';

const MiB = 1024 * 1024;
const RESERVE = 4 * MiB;

type Confirm = { ok: boolean; code?: string };

async function ready(h: Harness) {
  const res = await fetch(`${h.url}${HttpPath.READY}`);
  return { status: res.status, body: ReadinessSchema.parse(await res.json()) };
}

/** Polls `/ready` until its status and store check are the ones given. */
async function readyBecomes(h: Harness, status: number, store: string): Promise<void> {
  await waitUntilAsync(
    async () => {
      const r = await ready(h);
      return r.status === status && r.body.checks.store === store;
    },
    `/ready answers ${status} with store "${store}"`,
    10_000,
  );
}

describe('GET /ready and the free-space reserve (SQLite on a 20 MiB tmpfs)', () => {
  it('answers 503 "low free space" below the reserve and 200 once space is freed', async (ctx) => {
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
      expect(await ready(h)).toMatchObject({ status: 200, body: { ready: true } });

      const filler = fillLeaving(dir, 'filler.bin', RESERVE - MiB);
      await readyBecomes(h, 503, ReadinessReason.LOW_FREE_SPACE);
      expect((await ready(h)).body).toEqual({
        ready: false,
        draining: false,
        checks: {
          listeners: ReadinessReason.OK,
          store: ReadinessReason.LOW_FREE_SPACE,
          redis: ReadinessReason.NOT_CLUSTERED,
          catch_up: ReadinessReason.NOT_CLUSTERED,
        },
      });
      // Liveness is not readiness: the process still serves.
      expect((await fetch(`${h.url}${HttpPath.HEALTH}`)).status).toBe(200);

      unlinkSync(filler);
      await readyBecomes(h, 200, ReadinessReason.OK);
    } finally {
      await h?.close();
      unmount(dir);
    }
  }, 30_000);

  it('answers 503 "store full" after a write failed for lack of space (reserve off)', async (ctx) => {
    const dir = mountTmpfs(ctx);
    if (!dir) return;
    let h: Harness | undefined;
    try {
      h = await startBroker(
        { storage: 'sqlite', storage_options: { min_free_bytes: 0 }, http_api: { enabled: true } },
        { dataDir: dir },
      );
      const c = await h.consumer('w1');
      await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
      c.disconnect();
      const p = await h.producer('fleet');
      const filler = fillLeaving(dir, 'filler.bin', 0);
      // Durable copies until SQLite runs out of space (nothing stops them early).
      let refused: Confirm | null = null;
      for (let i = 0; i < 10_000 && refused === null; i++) {
        const confirm = (await p.timeout(5_000).emitWithAck(ClientEvent.PRODUCE, {
          event: 'job',
          message: `${i}-${'y'.repeat(4_000)}`,
          from: 'fleet',
        })) as Confirm;
        if (!confirm.ok) refused = confirm;
      }
      expect(refused).toMatchObject({ ok: false, code: 'SWB_ERR_STORAGE' });
      expect(await ready(h)).toMatchObject({
        status: 503,
        body: { ready: false, checks: { store: ReadinessReason.STORE_FULL } },
      });

      unlinkSync(filler);
      await readyBecomes(h, 200, ReadinessReason.OK);
    } finally {
      await h?.close();
      unmount(dir);
    }
  }, 60_000);
});
