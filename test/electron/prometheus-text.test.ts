import { describe, expect, it } from 'vitest';
import {
  PromParseError,
  parsePrometheusText,
  sumSamples,
} from '../../electron/services/prometheus-text';
import { RingBuffer } from '../../electron/services/ring-buffer';
import { MetricName } from '../../shared/metric-names';

// The shape §10.4 prescribes: sorted counters, `# TYPE` lines, sorted labels, no HELP.
const EXPOSITION = [
  `# TYPE ${MetricName.CONNECTIONS_TOTAL} counter`,
  `${MetricName.CONNECTIONS_TOTAL} 7`,
  `# TYPE ${MetricName.MESSAGES_DELIVERED_TOTAL} counter`,
  `${MetricName.MESSAGES_DELIVERED_TOTAL}{event="job",realm="default"} 40`,
  `${MetricName.MESSAGES_DELIVERED_TOTAL}{event="tick",realm="ops"} 2`,
  `# TYPE ${MetricName.MESSAGES_PRODUCED_TOTAL} counter`,
  `${MetricName.MESSAGES_PRODUCED_TOTAL}{event="job",realm="default"} 20`,
  `${MetricName.MESSAGES_PRODUCED_TOTAL}{event="a \\"quoted\\", odd\\\\name\\nx",realm="default"} 1.5e1`,
  `# TYPE ${MetricName.CONNECTIONS_CURRENT} gauge`,
  `${MetricName.CONNECTIONS_CURRENT} 3`,
  '',
].join('\n');

describe('parsePrometheusText', () => {
  it('reads samples, labels with escapes and types', () => {
    const parsed = parsePrometheusText(EXPOSITION);
    expect(parsed.types[MetricName.CONNECTIONS_CURRENT]).toBe('gauge');
    expect(parsed.types[MetricName.MESSAGES_PRODUCED_TOTAL]).toBe('counter');
    expect(parsed.samples).toHaveLength(6);
    const odd = parsed.samples[4];
    expect(odd?.labels).toEqual({ event: 'a "quoted", odd\\name\nx', realm: 'default' });
    expect(odd?.value).toBe(15);
  });

  it('sums a metric over label sets, optionally filtered, and counts a missing metric as 0', () => {
    const parsed = parsePrometheusText(EXPOSITION);
    expect(sumSamples(parsed, MetricName.MESSAGES_PRODUCED_TOTAL)).toBe(35);
    expect(sumSamples(parsed, MetricName.MESSAGES_DELIVERED_TOTAL)).toBe(42);
    expect(sumSamples(parsed, MetricName.MESSAGES_DELIVERED_TOTAL, { realm: 'ops' })).toBe(2);
    expect(sumSamples(parsed, MetricName.MESSAGES_DLQ_TOTAL)).toBe(0);
  });

  it('accepts timestamps, special values, HELP lines and CRLF', () => {
    const parsed = parsePrometheusText(
      '# HELP x Help text\r\nx 1 1700000000000\r\ny +Inf\r\nz NaN\r\nw{} -Inf\r\nv Nan\r\nu +inf\r\n',
    );
    // prom-client writes `Nan`; Prometheus reads special values in any case.
    expect(parsed.samples.map((s) => s.value)).toEqual([
      1,
      Infinity,
      NaN,
      -Infinity,
      NaN,
      Infinity,
    ]);
  });

  it('rejects malformed lines with the line number', () => {
    expect(() => parsePrometheusText('ok 1\nbad{event="x" 2')).toThrow(PromParseError);
    expect(() => parsePrometheusText('ok 1\nbad{event="x" 2')).toThrow(/Line 2/);
    expect(() => parsePrometheusText('x notanumber')).toThrow(/invalid value/);
    expect(() => parsePrometheusText('{a="b"} 1')).toThrow(/metric name/);
    expect(() => parsePrometheusText('x{a="unterminated} 1')).toThrow(/unterminated/);
  });
});

describe('RingBuffer', () => {
  it('keeps the newest `capacity` entries in order', () => {
    const buffer = new RingBuffer<number>(3);
    expect(buffer.last()).toBeUndefined();
    for (let i = 1; i <= 5; i += 1) buffer.push(i);
    expect(buffer.toArray()).toEqual([3, 4, 5]);
    expect(buffer.size).toBe(3);
    expect(buffer.last()).toBe(5);
    buffer.clear();
    expect(buffer.toArray()).toEqual([]);
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });
});
