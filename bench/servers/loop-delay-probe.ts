/**
 * Event-loop delay probe, installed in a server process before its entry by `probed-entry.ts`
 * (the tail-latency scenario, `scenarios/tail-latency.ts`), so the server itself — `broker/cli.ts` exactly as
 * `npm run broker` runs it, or the relay — needs no benchmark code.
 *
 * It runs `perf_hooks.monitorEventLoopDelay({ resolution: 1 })` from start-up and answers, over
 * the process's IPC channel (the one the CLI reports `broker-ready` on), messages
 * `{ type: 'loop-delay', id, reset }`: it replies `{ type: 'loop-delay', id, delay }` with the
 * histogram since the last reset (`LoopDelay`, ms), then resets it when `reset` is true.
 * Other messages are left to the process's own handlers.
 *
 * Resolution 1 ms: the histogram records how late a 1 ms timer fires, so a stall of S ms is
 * recorded as at least S − 1 ms (the default 10 ms resolution can miss a 5 ms stall entirely).
 * The 1 ms timer is the same cost in every probed process.
 *
 * Diagnosis: with `BENCH_TAIL_ALLOC_PROFILE_DIR` set, each reset starts V8's sampling heap
 * profiler counting objects the GC already collected too (allocation churn, not what is
 * live), and the next read writes `<dir>/<pid>-<n>.heapprofile` (Chrome DevTools format).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';

/** Event-loop delay histogram summary, ms (from nanoseconds). */
export interface LoopDelay {
  /** Samples recorded (≈ elapsed ms at 1 ms resolution). */
  count: number;
  mean_ms: number;
  p50_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
  /** CPU time of the whole process (all threads, user + system) since the last reset, µs. */
  cpu_us: number;
  /** Garbage-collection pauses since the last reset (`PerformanceObserver` 'gc' entries). */
  gc: { count: number; total_ms: number; max_ms: number };
}

export interface LoopDelayRequest {
  type: 'loop-delay';
  id: number;
  reset: boolean;
}

export interface LoopDelayReply {
  type: 'loop-delay';
  id: number;
  delay: LoopDelay;
}

const cpuSince = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start);
  return d.user + d.system;
};
const round2 = (v: number) => Math.round(v * 100) / 100;
const ms = (ns: number) => round2(ns / 1e6);

/** Allocation sampling between probe resets (`BENCH_TAIL_ALLOC_PROFILE_DIR`), or null. */
function allocationProfiler(dir: string | undefined): ((restart: boolean) => void) | null {
  if (!dir) return null;
  const session = new Session();
  session.connect();
  let running = false;
  let n = 0;
  return (restart) => {
    if (running) {
      session.post('HeapProfiler.stopSampling', (err, result) => {
        if (!err)
          writeFileSync(
            join(dir, `${process.pid}-${++n}.heapprofile`),
            JSON.stringify(result.profile),
          );
      });
      running = false;
    }
    if (!restart) return;
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never);
    running = true;
  };
}

if (typeof process.send === 'function') {
  const allocProfile = allocationProfiler(process.env.BENCH_TAIL_ALLOC_PROFILE_DIR);
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let cpuAtReset = process.cpuUsage();
  // GC pauses block the loop too: counted to tell a collector pause from the server's own work.
  const gc = { count: 0, total_ms: 0, max_ms: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count++;
      gc.total_ms += entry.duration;
      gc.max_ms = Math.max(gc.max_ms, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('message', (raw: unknown) => {
    const m = raw as Partial<LoopDelayRequest> | null;
    if (m?.type !== 'loop-delay' || typeof m.id !== 'number') return;
    const empty = histogram.count === 0;
    const delay: LoopDelay = {
      count: histogram.count,
      mean_ms: empty ? 0 : ms(histogram.mean),
      p50_ms: empty ? 0 : ms(histogram.percentile(50)),
      p99_ms: empty ? 0 : ms(histogram.percentile(99)),
      p999_ms: empty ? 0 : ms(histogram.percentile(99.9)),
      max_ms: empty ? 0 : ms(histogram.max),
      cpu_us: cpuSince(cpuAtReset),
      gc: { count: gc.count, total_ms: round2(gc.total_ms), max_ms: round2(gc.max_ms) },
    };
    allocProfile?.(m.reset === true);
    if (m.reset) {
      cpuAtReset = process.cpuUsage();
      histogram.reset();
      Object.assign(gc, { count: 0, total_ms: 0, max_ms: 0 });
    }
    process.send?.({ type: 'loop-delay', id: m.id, delay } satisfies LoopDelayReply);
  });
}
