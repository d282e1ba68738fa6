/**
 * How the local broker's ports read in the console (Local broker view, Overview): the socket.io
 * port comes with the MQTT port(s) the broker reported in its ready message, so a port chosen with
 * `--broker-mqtt-port 0` can be read off the UI.
 */
import type { LocalBrokerStatus } from '../../../../shared/console-api';

type PortsStatus = Pick<LocalBrokerStatus, 'state' | 'mqttPort' | 'mqttWsPort'>;

/** The MQTT (TCP) port: the number once known, `off` for a running broker without MQTT, else
 * `—` (not known yet). */
export function mqttPortText(status: PortsStatus | null | undefined): string {
  if (status?.mqttPort) return String(status.mqttPort);
  return status?.state === 'running' ? 'off' : '—';
}

/** The Overview's line under the port: `socket.io · MQTT 1883 · MQTT WebSocket 8083`. */
export function portsDetail(status: PortsStatus | null | undefined): string {
  const parts = ['socket.io', `MQTT ${mqttPortText(status)}`];
  if (status?.mqttWsPort) parts.push(`MQTT WebSocket ${status.mqttWsPort}`);
  return parts.join(' · ');
}
