/**
 * One connected MQTT client in the Clients view (issue 14): an "MQTT 3.1.1" / "MQTT 5" badge
 * (just "MQTT" from a broker that does not say), its client id (as
 * the client chose it), how it was admitted, its session kind, its messages per second and its
 * filters with their QoS.
 * "Details" opens its detail panel (client-detail-panel.tsx), where it can be force-closed.
 */
import type { ClientMqtt } from '../../../../shared/http-api';
import { StatusBadge } from '../../components/status-badge';
import { ClientRateLine } from './client-rate-line';
import type { RowRate } from './clients-model';

export function MqttClientCard({
  client,
  rate = null,
  onOpen,
}: {
  client: ClientMqtt;
  /** Its messages per second (client-rate-line.tsx); null: not measured. */
  rate?: RowRate | null;
  onOpen?: () => void;
}) {
  return (
    <li className="ops-client" data-testid={`client-mqtt-${client.client_id}`}>
      <div className="ops-client__head">
        <span className="tag" data-testid="client-mqtt-protocol">
          {mqttVersionLabel(client.protocol_version)}
        </span>
        <strong>{client.client_id || '(empty client id)'}</strong>
        <StatusBadge label="online" tone="ok" />
        {onOpen && (
          <button
            type="button"
            className="button ops-open"
            onClick={onOpen}
            data-testid={`client-open-mqtt-${client.client_id}`}
          >
            Details
          </button>
        )}
      </div>
      <p className="muted small">
        {client.clean ? 'clean session' : 'persistent session'} · role {client.role}
        {client.username !== null && ` · user ${client.username}`}
        {!client.authenticated && ' · no credentials'}
        {` · since ${new Date(client.connected_since).toLocaleTimeString('en-GB')}`}
      </p>
      <ClientRateLine rate={rate} />
      {client.subscriptions.length === 0 ? (
        <p className="muted small">No subscriptions.</p>
      ) : (
        <ul className="ops-subs">
          {client.subscriptions.map((sub) => (
            <li key={sub.filter} className="ops-sub" data-testid="client-mqtt-subscription">
              <code className="ops-sub__key">{sub.filter}</code>
              <span className="ops-sub__facts">
                <span>QoS {sub.qos}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The badge text for a CONNECT protocol level (3 = 3.1, 4 = 3.1.1, 5 = 5.0). */
export function mqttVersionLabel(level: number | undefined): string {
  switch (level) {
    case 3:
      return 'MQTT 3.1';
    case 4:
      return 'MQTT 3.1.1';
    case 5:
      return 'MQTT 5';
    default:
      return 'MQTT';
  }
}
