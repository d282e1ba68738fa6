/**
 * Wires the client records (issue 27) into the broker's parts, so the composition root adds a
 * few lines only: the history, its socket.io feed (rate-limit refusals, back-pressure drops) and
 * the MQTT feed once the listener exists.
 */
import { ClientBans } from '../auth/client-bans';
import type { BackPressure } from '../limits/back-pressure';
import type { LimitsService } from '../limits/limits-service';
import type { MqttListener } from '../mqtt/mqtt-listener';
import { ClientHistory } from './client-history';
import { MqttClientRecords } from './mqtt-client-records';
import { SocketClients } from './socket-clients';

export interface ClientTracking {
  readonly history: ClientHistory;
  /** MQTT client ids a manager blocked (`close_client` with `block_seconds`). */
  readonly bans: ClientBans;
  readonly sockets: SocketClients;
  /** Feeds the MQTT listener's connections into the same history (call before `listen`). */
  mqtt(listener: MqttListener): void;
}

export function clientTracking(limits: LimitsService, backPressure: BackPressure): ClientTracking {
  const history = new ClientHistory();
  const bans = new ClientBans();
  const sockets = new SocketClients(history);
  limits.onRefused = (socket, refusal) => sockets.rateLimited(socket, refusal.reason);
  backPressure.onDrop = (socket) => sockets.dropped(socket);
  return {
    history,
    bans,
    sockets,
    mqtt(listener) {
      listener.records = new MqttClientRecords(history, limits);
      listener.bans = bans;
    },
  };
}
