/**
 * One connected MQTT client in the Clients view (issue 14): an "MQTT" badge, its client id (as
 * the client chose it), how it was admitted, its session kind and its filters with their QoS.
 * Like tyo-mq clients, it cannot be disconnected from here (see the view's note).
 */
import type { ClientMqtt } from '../../../shared/http-api';
import { StatusBadge } from '../components/status-badge';
import '../styles/mqtt-clients.css';

export function MqttClientCard({ client }: { client: ClientMqtt }) {
  return (
    <li className="ops-client" data-testid={`client-mqtt-${client.client_id}`}>
      <div className="ops-client__head">
        <span className="mqtt-tag">MQTT</span>
        <strong>{client.client_id || '(empty client id)'}</strong>
        <StatusBadge label="online" tone="ok" />
        <button
          type="button"
          className="button ops-client__disconnect"
          disabled
          aria-describedby="clients-disconnect-note"
          title="Neither tyo-mq nor Switchboard's management has a command to disconnect one client"
        >
          Disconnect
        </button>
      </div>
      <p className="muted small">
        {client.clean ? 'clean session' : 'persistent session'} · role {client.role}
        {client.username !== null && ` · user ${client.username}`}
        {!client.authenticated && ' · no credentials'}
        {` · since ${new Date(client.connected_since).toLocaleTimeString('en-GB')}`}
      </p>
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
