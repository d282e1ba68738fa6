import { describe, expect, it } from 'vitest';
import { readClusterRelay } from '../../electron/services/cluster-relay-counters';
import { parsePrometheusText } from '../../electron/services/prometheus-text';
import { MetricName } from '../../shared/metric-names';

describe('readClusterRelay', () => {
  it('reads the relay totals of a clustered node by outcome', () => {
    const text = [
      `# TYPE ${MetricName.CLUSTER_REDIS_UP} gauge`,
      `${MetricName.CLUSTER_REDIS_UP} 1`,
      `# TYPE ${MetricName.CLUSTER_RELAYED_TOTAL} counter`,
      `${MetricName.CLUSTER_RELAYED_TOTAL}{outcome="sent"} 40`,
      `${MetricName.CLUSTER_RELAYED_TOTAL}{outcome="failed"} 3`,
      `# TYPE ${MetricName.CLUSTER_RECEIVED_TOTAL} counter`,
      `${MetricName.CLUSTER_RECEIVED_TOTAL}{outcome="routed"} 17`,
      `${MetricName.CLUSTER_RECEIVED_TOTAL}{outcome="invalid"} 1`,
      `${MetricName.CONNECTIONS_CURRENT} 3`,
      '',
    ].join('\n');
    expect(readClusterRelay(parsePrometheusText(text))).toEqual({
      sent: 40,
      failed: 3,
      received: 17,
      invalid: 1,
    });
  });

  it('counts 0 for counters not incremented yet, and nothing for a broker not clustered', () => {
    const clustered = parsePrometheusText(`${MetricName.CLUSTER_REDIS_UP} 0\n`);
    expect(readClusterRelay(clustered)).toEqual({ sent: 0, failed: 0, received: 0, invalid: 0 });
    const plain = parsePrometheusText(`${MetricName.CONNECTIONS_CURRENT} 3\n`);
    expect(readClusterRelay(plain)).toBeUndefined();
  });
});
