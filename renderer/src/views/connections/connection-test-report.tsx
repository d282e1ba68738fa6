/** The layers of a connection test (socket, credential, HTTP API), each with its reason. */
import type { ConnectionTestReport } from '../../../../shared/console-api-connections';
import { StatusBadge } from '../../components/status-badge';
import { operatorMessage } from '../../operator-message';

const LAYER_LABELS = {
  socket: 'Socket reachable',
  credential: 'Credential accepted',
  http: 'HTTP API reachable and authorized',
} as const;

const TONES = { ok: 'ok', failed: 'bad', skipped: 'idle' } as const;

export function ConnectionTestReportView({ report }: { report: ConnectionTestReport }) {
  return (
    <ol className="test-report" data-testid={`connection-test-${report.connectionId}`}>
      {report.layers.map((layer) => (
        <li
          key={layer.layer}
          className="test-report__layer"
          data-testid={`test-layer-${layer.layer}`}
          data-status={layer.status}
        >
          <StatusBadge label={layer.status} tone={TONES[layer.status]} />
          <span className="test-report__name">{LAYER_LABELS[layer.layer]}</span>
          <span className="test-report__message muted">
            {operatorMessage(layer.message)}
            {layer.durationMs !== null ? ` (${layer.durationMs} ms)` : ''}
          </span>
        </li>
      ))}
    </ol>
  );
}
