/**
 * `SWB_ERR_PORT_IN_USE` saying which of the broker's listeners could not bind and on which port,
 * so a supervisor (the console) can name the port and its own flag for it instead of guessing
 * from the message. Thrown by the broker's socket.io/HTTP host and its MQTT listener; the broker
 * CLI forwards `listener` and `port` in its `broker-fatal` message (shared/broker-process.ts).
 */
import { SwitchboardError } from './error-catalogue';

/** The broker's listeners: socket.io + HTTP API, MQTT over TCP, MQTT over WebSocket. */
export type BrokerListener = 'socketio' | 'mqtt' | 'mqtt-ws';

export class PortInUseError extends SwitchboardError {
  constructor(
    readonly listener: BrokerListener,
    /** The port asked for (never 0: any free port cannot be taken). */
    readonly port: number,
    message: string,
  ) {
    super('SWB_ERR_PORT_IN_USE', message);
  }
}
