/**
 * Messages a broker child process sends its supervisor over the Node IPC channel
 * (`process.send`), and its exit codes. Used by `broker/cli.ts` and the console's
 * BrokerSupervisor (ARCHITECTURE §1: the broker runs in its own supervised process).
 */
import { CliExitCode } from './cli-conventions';
import type { BrokerListener } from './port-in-use-error';

/** Sent once the socket.io and HTTP server (and the MQTT listener, when enabled) listens. */
export interface BrokerReadyMessage {
  type: 'broker-ready';
  /** Bound socket.io/HTTP port. */
  port: number;
  host: string;
  pid: number;
  version: string;
  /** Bound MQTT TCP/TLS port (`broker.status().mqttPort`); null without MQTT. */
  mqttPort: number | null;
  /** Bound MQTT-over-WebSocket port (`mqtt.ws_port`); null without one. */
  mqttWsPort: number | null;
}

/** Sent just before the process exits because it cannot start or run. */
export interface BrokerFatalMessage {
  type: 'broker-fatal';
  /** `SWB_ERR_PORT_IN_USE`, `SWB_ERR_VALIDATION` (bad flags/settings) or `SWB_ERR_INTERNAL`. */
  code: 'SWB_ERR_PORT_IN_USE' | 'SWB_ERR_VALIDATION' | 'SWB_ERR_INTERNAL';
  message: string;
  /** With `SWB_ERR_PORT_IN_USE`: which listener could not bind (`PortInUseError`). */
  listener?: BrokerListener;
  /** With `SWB_ERR_PORT_IN_USE`: the taken port. */
  port?: number;
}

export type BrokerProcessMessage = BrokerReadyMessage | BrokerFatalMessage;

/** Exit codes of `broker/cli.ts` (the convention of both CLIs, `shared/cli-conventions.ts`).
 * A supervisor restarts only after `CRASH` (or a signal); `CONFIG` and `PORT_IN_USE` would fail
 * the same way again. */
export const BrokerExitCode = CliExitCode;
