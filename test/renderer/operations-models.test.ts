/**
 * Pure models of the operations views: chart points appended in order and trimmed to the range,
 * rows thinned by averaging (gaps kept), dead-letter search over event/consumer/reason/payload,
 * JSON-lines export, and batched actions that stop between batches when cancelled (entries not
 * yet sent are untouched, those settled are reported).
 */
import { describe, expect, it } from 'vitest';
import type { DeadLetter, MetricPoint } from '../../shared/console-api-operations';
import {
  appendPoint,
  chartRows,
  thinRows,
  type ChartRow,
} from '../../renderer/src/views/charts/charts-model';
import {
  indexEntry,
  runBatches,
  searchEntries,
  toJsonLines,
  ACTION_BATCH,
} from '../../renderer/src/views/dead-letters/dead-letters-model';

const point = (seq: number, produced: number | null): MetricPoint => ({
  t: seq * 1000,
  seq,
  spanMs: 1000,
  up: produced !== null,
  rates:
    produced === null
      ? null
      : { produced, delivered: 0, queued: 0, deadLettered: 0, ackTimeouts: 0, rateLimited: 0 },
  totals: null,
  connections: 1,
  queueDepth: 0,
  dlqDepth: 0,
  realms: {},
});

const letter = (i: number, over: Partial<DeadLetter> = {}): DeadLetter => ({
  id: `msg-${i}`,
  realm: 'default',
  consumer: i % 2 ? 'billing' : 'shipping',
  reason: 'ack timeout after 3 attempt(s)',
  origin: { producer: 'orders', event: 'created', key: 'orders-created' },
  replayCount: 0,
  firstDeadLetteredAt: null,
  deadLetteredAt: 1_700_000_000_000,
  createdAt: null,
  expiresAt: null,
  payload: JSON.stringify({ order: i }),
  payloadTruncated: false,
  ...over,
});

describe('charts model', () => {
  it('appends newer points only and trims the 5 min range by covered time', () => {
    let points: MetricPoint[] = [];
    for (let seq = 1; seq <= 400; seq++) points = appendPoint(points, point(seq, seq), '5m');
    expect(points).toHaveLength(300);
    expect(points[0]!.seq).toBe(101);
    expect(appendPoint(points, point(50, 1), '5m')).toBe(points); // older: ignored
    expect(appendPoint([], point(1, 1), 'all')).toHaveLength(1);
  });

  it('thins rows by averaging buckets and keeps gaps', () => {
    const rows: ChartRow[] = chartRows(
      Array.from({ length: 300 }, (_, i) => point(i + 1, i < 150 ? 10 : null)),
      null,
    );
    const thin = thinRows(rows, 150);
    expect(thin).toHaveLength(150);
    expect(thin[0]!.produced).toBe(10);
    expect(thin.at(-1)!.produced).toBeNull();
  });
});

describe('dead letters model', () => {
  const indexed = Array.from({ length: 50 }, (_, i) => indexEntry(letter(i)));

  it('searches event, consumer, reason and payload, every word', () => {
    expect(searchEntries(indexed, '')).toHaveLength(50);
    expect(searchEntries(indexed, 'BILLING')).toHaveLength(25);
    expect(searchEntries(indexed, '"order":42}')).toHaveLength(1);
    expect(searchEntries(indexed, 'created timeout shipping')).toHaveLength(25);
    expect(searchEntries(indexed, 'nothing-like-this')).toHaveLength(0);
  });

  it('exports one JSON object per line with the payload parsed', () => {
    const lines = toJsonLines([letter(1), letter(2, { payload: '{cut', payloadTruncated: true })])
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { payload: unknown });
    expect(lines[0]!.payload).toEqual({ order: 1 });
    expect(lines[1]!.payload).toBe('{cut');
  });

  it('runs batches, and stops between batches once cancelled', async () => {
    const ids = Array.from({ length: ACTION_BATCH * 3 + 5 }, (_, i) => `msg-${i}`);
    const calls: string[][] = [];
    let cancel = false;
    const progress: number[] = [];
    const settled = await runBatches(
      ids,
      async (batch) => {
        calls.push(batch);
        if (calls.length === 2) cancel = true; // the user presses Cancel during batch 2
        return { connectionId: 'local', done: batch.slice(1), notFound: batch.slice(0, 1) };
      },
      {
        cancelled: () => cancel,
        onProgress: (p) => progress.push(p.done),
        onSettled: () => undefined,
      },
    );
    expect(calls).toHaveLength(2);
    expect([...settled].sort()).toEqual(ids.slice(0, ACTION_BATCH * 2).sort());
    expect(progress).toEqual([0, ACTION_BATCH, ACTION_BATCH * 2]);
  });
});
