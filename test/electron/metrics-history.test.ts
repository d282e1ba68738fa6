/**
 * MetricsHistory: per-second rates from real exposition text, counter resets (a broker restart)
 * counted from zero, outages as `up: false` gaps, per-realm series, and the "since start" range
 * staying bounded by merging old points.
 */
import { describe, expect, it } from 'vitest';
import { ALL_CAPACITY, MetricsHistory } from '../../electron/services/metrics-history';
import type { BrokerSample } from '../../electron/services/metrics-poller';
import { parsePrometheusText } from '../../electron/services/prometheus-text';

function exposition(
  produced: number,
  dlq: number,
  depth = 0,
): ReturnType<typeof parsePrometheusText> {
  return parsePrometheusText(
    [
      '# TYPE tyo_mq_messages_produced_total counter',
      `tyo_mq_messages_produced_total{event="job",realm="fleet"} ${produced}`,
      `tyo_mq_messages_produced_total{event="job",realm="default"} 1`,
      `tyo_mq_messages_dlq_total{realm="fleet"} ${dlq}`,
      `tyo_mq_queue_depth{realm="fleet"} ${depth}`,
      `tyo_mq_dlq_depth{realm="fleet"} ${dlq}`,
      'tyo_mq_connections_current 3',
    ].join('\n'),
  );
}

let seq = 0;
function sample(seconds: number, reachable = true): BrokerSample {
  seq += 1;
  return {
    sampledAt: 1_700_000_000_000 + seconds * 1000,
    seq,
    monotonicAt: seconds * 1000,
    reachable,
    error: null,
    health: null,
    stats: null,
    counters: null,
    rates: null,
  };
}

describe('MetricsHistory', () => {
  it('computes rates per second in total and per realm, with depths and connections', () => {
    const history = new MetricsHistory();
    const first = history.record('c', sample(0), exposition(100, 2, 5));
    expect(first.rates).toBeNull();
    expect(first.totals).toMatchObject({ produced: 101, deadLettered: 2 });
    const second = history.record('c', sample(2), exposition(140, 4, 7));
    expect(second.rates).toMatchObject({ produced: 20, deadLettered: 1, delivered: 0 });
    expect(second.realms.fleet).toMatchObject({
      rates: { produced: 20, deadLettered: 1 },
      queueDepth: 7,
      dlqDepth: 4,
    });
    expect(second.realms.default!.rates!.produced).toBe(0);
    expect(second).toMatchObject({ up: true, connections: 3, queueDepth: 7, dlqDepth: 4 });
  });

  it('counts a counter that went down (broker restart) from zero, and gaps an outage', () => {
    const history = new MetricsHistory();
    history.record('c', sample(0), exposition(1000, 0));
    const restarted = history.record('c', sample(1), exposition(10, 0));
    // 11 (fleet 10 + default 1) after 1001: a reset, so the increase is the new value.
    expect(restarted.rates!.produced).toBe(11);
    const down = history.record('c', sample(2, false), null);
    expect(down).toMatchObject({ up: false, rates: null, totals: null });
    const back = history.record('c', sample(3), exposition(20, 0));
    expect(back.rates).toBeNull(); // no rate across an outage
    const next = history.record('c', sample(4), exposition(25, 0));
    expect(next.rates!.produced).toBe(5);
    expect(history.points('c', '5m').map((p) => p.up)).toEqual([true, true, false, true, true]);
  });

  it('keeps 5 minutes of raw points and a bounded since-start range', () => {
    const history = new MetricsHistory();
    const hours = 6;
    for (let s = 0; s < hours * 3600; s += 1) history.record('c', sample(s), exposition(s * 10, 0));
    const five = history.points('c', '5m');
    expect(five.length).toBeGreaterThanOrEqual(299);
    expect(five.length).toBeLessThanOrEqual(301);
    expect(five.at(-1)!.rates!.produced).toBeCloseTo(10);
    expect(history.points('c', '1h').length).toBeLessThanOrEqual(720);
    const all = history.points('c', 'all');
    expect(all.length).toBeLessThanOrEqual(ALL_CAPACITY + 1);
    // Together the points cover the whole run, and merged rates stay averages.
    const span = all.reduce((sum, p) => sum + p.spanMs, 0);
    expect(span).toBeGreaterThan(hours * 3600 * 1000 - 10_000);
    expect(all[Math.floor(all.length / 2)]!.rates!.produced).toBeCloseTo(10);
    expect(history.points('unknown', 'all')).toEqual([]);
  });
});
