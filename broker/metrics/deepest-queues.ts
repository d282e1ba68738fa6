/**
 * `deepestQueues(queues, max)`: the top of the per-queue depth gauge
 * (`tyo_mq_subscription_queue_depth`, issue 20 item 4): its labels are client-chosen, so a
 * scrape shows only the deepest `max` queues and sums the rest (broker-metrics.ts).
 */

/** One durable queue's depth: copies stored for one consumer of one subscription. */
export interface QueueDepth {
  realm: string;
  key: string;
  consumer: string;
  stored: number;
}

/**
 * The `max` deepest of `queues` (any order) and the sum and count of the others; one pass, a
 * min-heap of `max` entries, so a scrape costs O(n log max) and allocates O(max).
 */
export function deepestQueues(
  queues: Iterable<QueueDepth>,
  max: number,
): { top: QueueDepth[]; restStored: number; total: number } {
  const heap: QueueDepth[] = [];
  let restStored = 0;
  let total = 0;
  const less = (a: QueueDepth, b: QueueDepth) => a.stored < b.stored;
  for (const q of queues) {
    total++;
    if (heap.length < max) {
      heap.push(q);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!less(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
      continue;
    }
    if (max === 0 || !less(heap[0]!, q)) {
      restStored += q.stored;
      continue;
    }
    restStored += heap[0]!.stored;
    heap[0] = q;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && less(heap[r]!, heap[m]!)) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  }
  return { top: heap, restStored, total };
}
