/**
 * Messages a broker child process sends its supervisor over the Node IPC channel
 * (`process.send`), and its exit codes. Used by `broker/cli.ts` and the console's
 * BrokerSupervisor (ARCHITECTURE §1: the broker runs in its own supervised process).
 */

/** Sent once the socket.io and HTTP server listens. */
export interface BrokerReadyMessage {
  type: 'broker-ready';
  port: number;
  host: string;
  pid: number;
  version: string;
}

/** Sent just before the process exits because it cannot start or run. */
export interface BrokerFatalMessage {
  type: 'broker-fatal';
  /** `SWB_ERR_PORT_IN_USE`, `SWB_ERR_VALIDATION` (bad flags/settings) or `SWB_ERR_INTERNAL`. */
  code: 'SWB_ERR_PORT_IN_USE' | 'SWB_ERR_VALIDATION' | 'SWB_ERR_INTERNAL';
  message: string;
}

export type BrokerProcessMessage = BrokerReadyMessage | BrokerFatalMessage;

/** Exit codes of `broker/cli.ts`. A supervisor restarts only after `CRASH` (or a signal). */
export const BrokerExitCode = {
  OK: 0,
  CRASH: 1,
  /** Bad flags or settings: restarting would fail the same way. */
  CONFIG: 2,
  /** The port is taken: restarting would fail the same way. */
  PORT_IN_USE: 3,
} as const;
