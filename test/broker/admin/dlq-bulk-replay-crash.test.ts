/**
 * A bulk DLQ replay interrupted by SIGKILL of a real broker process (issue 10): every one of
 * 2,000 dead-lettered entries ends up either still in the DLQ or re-queued for its consumer —
 * none lost, none in both places — because each entry moves in its own store transaction.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process';
import { ADMIN_TOKEN, send, sign, type Reply } from './management-client';

const TOTAL = 2_000;
const BATCH = 50;
const KILL_AFTER_BATCHES = 12;

let broker: BrokerProcess | null = null;
let dir = '';
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await broker?.stop();
  broker = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bulk DLQ replay interrupted by kill -9', () => {
  it('leaves each of 2,000 entries in exactly one place: DLQ or queue', async () => {
    dir = mkdtempSync(join(tmpdir(), 'swb-dlq-crash-'));
    const filename = join(dir, 'tyo-mq.sqlite');
    // Seeded in group commits (one transaction per burst) to keep the test short.
    const seed = new SqliteStore({ filename, synchronous: 'NORMAL' });
    const ids = await Promise.all(
      Array.from({ length: TOTAL }, (_, i) =>
        seed.enqueue('default', 'fleet-job', {
          consumer: 'w-offline',
          payload: { event: 'job', message: i, from: 'fleet' },
          producer: 'fleet',
        }),
      ),
    );
    await Promise.all(ids.map((id) => seed.deadLetter(id, 'seeded')));
    expect(await seed.listDlq(null)).toHaveLength(TOTAL);
    await seed.close();

    const settings = join(dir, 'settings.json');
    writeFileSync(
      settings,
      JSON.stringify({
        auth: { enabled: false, tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }] },
      }),
    );
    broker = await startBrokerProcess(['--port', '0', '--data-dir', dir, '--settings', settings]);
    const socket = io(broker.url, {
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
    });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });

    // Batches in flight back to back; the broker is killed while one is being processed.
    // A replay re-queues under a new id, so entries are followed by their payload (index i).
    const acknowledged = new Set<string>();
    const requeuedIds = new Set<string>();
    let batches = 0;
    let killed = false;
    for (let start = 0; start < TOTAL && !killed; start += BATCH) {
      const batch = ids.slice(start, start + BATCH);
      const reply: Promise<Reply | null> = send(
        socket,
        sign({ command: 'dlq_replay', ids: batch }),
      ).catch(() => null);
      if (++batches === KILL_AFTER_BATCHES) {
        // Kill without waiting for this batch's answer, a few ms in: it may be half done.
        const child = broker.child;
        setTimeout(() => child.kill('SIGKILL'), 3);
        killed = true;
      }
      const r = await reply;
      if (r?.ok) {
        for (const x of r.replayed as Array<{ msg_id: string; new_msg_id: string }>) {
          acknowledged.add(x.msg_id);
          requeuedIds.add(x.new_msg_id);
        }
      }
    }
    await broker.exited;
    expect(killed).toBe(true);

    const check = new SqliteStore({ filename });
    try {
      const index = new Map(ids.map((id, i) => [id, i]));
      const inDlq = new Set((await check.listDlq(null)).map((e) => e.message.message as number));
      const queued = await check.dequeue('default', 'fleet-job', 'w-offline');
      const inQueue = new Set(queued.map((e) => e.message.message as number));
      const lost = ids.filter((_id, i) => !inDlq.has(i) && !inQueue.has(i));
      const doubled = ids.filter((_id, i) => inDlq.has(i) && inQueue.has(i));
      console.log(
        JSON.stringify({
          dlqBulkReplayCrash: {
            total: TOTAL,
            acknowledged: acknowledged.size,
            requeued: inQueue.size,
            stillInDlq: inDlq.size,
            lost: lost.length,
            doubled: doubled.length,
          },
        }),
      );
      expect(lost).toEqual([]);
      expect(doubled).toEqual([]);
      expect(queued.length).toBe(inQueue.size);
      expect(inQueue.size + inDlq.size).toBe(TOTAL);
      // Everything acknowledged as replayed is in the queue under the id the reply gave.
      for (const id of acknowledged) expect(inQueue.has(index.get(id)!)).toBe(true);
      const queuedIds = new Set(queued.map((e) => e.id));
      for (const id of requeuedIds) expect(queuedIds.has(id)).toBe(true);
      expect(
        queued.every(
          (e) =>
            e.message.replay_count === 1 && typeof e.message.first_dead_lettered_at === 'string',
        ),
      ).toBe(true);
      expect(inQueue.size).toBeGreaterThanOrEqual((KILL_AFTER_BATCHES - 1) * BATCH);
    } finally {
      await check.close();
    }
  }, 60_000);
});
