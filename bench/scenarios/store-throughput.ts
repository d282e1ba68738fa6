/**
 * Store-level durable throughput, without the network: how many 1 KiB copies per second a
 * message store can persist and then delete (ACK), written in bursts the way the broker's group
 * commit sees them under load. Separates the storage cost from the socket.io cost that the
 * end-to-end durable scenario (`durable.ts`) includes.
 * Units: messages/s; µs per message (enqueue + ack, both committed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryStore } from '../../broker/storage/memory-store';
import type { MessageStore } from '../../broker/storage/message-store';
import { SqliteStore } from '../../broker/storage/sqlite-store';
import { round } from '../lib/stats';

export interface StoreThroughputConfig {
  messages: number;
  /** Writes issued together before awaiting them (one event-loop turn of the broker). */
  burst: number;
  payloadBytes: number;
}

async function measure(store: MessageStore, c: StoreThroughputConfig) {
  const padding = 'x'.repeat(c.payloadBytes);
  const start = performance.now();
  for (let i = 0; i < c.messages; i += c.burst) {
    const n = Math.min(c.burst, c.messages - i);
    const ids = await Promise.all(
      Array.from({ length: n }, (_, k) =>
        store.enqueue('default', 'bench-job', {
          consumer: 'bench-c',
          payload: { event: 'job', message: { s: i + k, p: padding }, from: 'bench' },
          producer: 'bench',
        }),
      ),
    );
    await Promise.all(ids.map((id) => store.ack(id)));
  }
  const ms = performance.now() - start;
  return {
    messages_per_s: round(c.messages / (ms / 1000), 0),
    us_per_message: round((ms * 1000) / c.messages, 1),
  };
}

/** Memory, SQLite FULL and SQLite NORMAL, each on a fresh store. */
export async function runStoreThroughput(c: StoreThroughputConfig) {
  const dir = mkdtempSync(join(tmpdir(), 'swb-bench-store-'));
  try {
    const results: Record<string, unknown> = {};
    results.memory = await measure(new MemoryStore(), c);
    for (const synchronous of ['FULL', 'NORMAL'] as const) {
      const store = new SqliteStore({ filename: join(dir, `${synchronous}.sqlite`), synchronous });
      results[`sqlite_${synchronous.toLowerCase()}`] = await measure(store, c);
      await store.close();
    }
    return { payload_bytes: c.payloadBytes, burst: c.burst, messages: c.messages, results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
