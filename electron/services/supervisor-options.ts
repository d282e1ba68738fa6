/**
 * What BrokerSupervisor (broker-supervisor.ts) is configured with and reads: its options, the
 * restart backoff, the log line shape, and the schema of the IPC messages a broker child sends.
 */
import { z } from 'zod';
import type { BrokerLauncher } from './broker-launcher';

/** Restart backoff: `initialMs · 2^attempt`, capped at `maxMs`; the attempt count resets once a
 * broker has stayed up for `stableMs`. Defaults 500 ms, 30 s, 60 s. */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  stableMs: number;
}
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, stableMs: 60_000 };

/** Delay in ms before restart number `attempt` (0-based). */
export function backoffDelay(
  attempt: number,
  options: Pick<BackoffOptions, 'initialMs' | 'maxMs'>,
): number {
  // Cap the exponent so 2^attempt cannot overflow to Infinity after many crashes.
  return Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt, 30));
}

export interface BrokerSupervisorOptions {
  /** Broker port; 0 = any free port. Once known, the real port is reused for restarts so clients
   * can reconnect to the same address. */
  port: number;
  /** Interface to bind. Default `127.0.0.1` (the local broker is not exposed to the LAN unless asked). */
  host?: string;
  /** Broker data directory (created if missing). */
  dataDir: string;
  /** Optional settings file passed as `--settings`. */
  settingsFile?: string;
  /** MQTT port passed as `--mqtt-port` (0 = any free port); undefined = the settings file's
   * `mqtt` block decides. Like `port`, once known the real port is reused for restarts, so MQTT
   * devices can reconnect to the same address. */
  mqttPort?: number;
  /** More broker CLI flags, after the supervisor's own. */
  extraArgs?: readonly string[];
  /** Default: fork `broker/cli.ts` through tsx. */
  launcher?: BrokerLauncher;
  /** Child environment. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** A broker that has not sent `broker-ready` after this long is killed and restarted. Default 30 s. */
  readyTimeoutMs?: number;
  /** SIGTERM grace period before SIGKILL on stop. Default 5 s. */
  stopTimeoutMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** Log lines kept. Default 500. */
  logCapacity?: number;
  /**
   * Consecutive exits without a ready message in between after which the supervisor stops
   * retrying and reports `failed` (`SWB_ERR_BROKER_NOT_RUNNING`, with the last reason), so a
   * broker that cannot start never keeps a start or restart pending forever. Default: no limit.
   */
  maxStartFailures?: number;
}

/** One line the broker wrote (usually a pino JSON record), cut to 8 KiB (`…` marks a cut line).
 * `at` is epoch ms. */
export interface BrokerLogLine {
  at: number;
  stream: 'stdout' | 'stderr';
  line: string;
}

/** Bytes kept of each broker output line; the rest is discarded while reading. */
export const MAX_LOG_LINE_BYTES = 8_192;

/** The IPC messages a broker child sends its supervisor (`shared/broker-process.ts`). */
export const BrokerMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('broker-ready'),
    port: z.number().int().min(1).max(65_535),
    host: z.string(),
    pid: z.number().int(),
    version: z.string(),
    // Optional: brokers before MQTT (and test doubles) do not send them.
    mqttPort: z.number().int().min(1).max(65_535).nullable().optional(),
    mqttWsPort: z.number().int().min(1).max(65_535).nullable().optional(),
  }),
  z.object({
    type: z.literal('broker-fatal'),
    code: z.enum(['SWB_ERR_PORT_IN_USE', 'SWB_ERR_VALIDATION', 'SWB_ERR_INTERNAL']),
    message: z.string(),
    listener: z.enum(['socketio', 'mqtt', 'mqtt-ws']).optional(),
    port: z.number().int().optional(),
  }),
]);
