/**
 * ConsoleApi contract of the Local broker view (start/stop, log tail, settings editor) and of
 * demo mode (a simulated workload against the local broker in its own realm). Issue 13.
 *
 * Spread into `ConsoleMethods` / `ConsoleEvents` by `console-api.ts`. Source: ARCHITECTURE §1;
 * settings semantics in docs/configuration.md ("Reload and persistence").
 */
import { z } from 'zod';

const ConnectionIdInput = z.object({ connectionId: z.string().min(1).max(128) }).strict();
const NoInput = z.object({}).strict();

/** Largest settings text the editor may save, in characters (the host body cap is 64 KiB). */
export const MAX_SETTINGS_CHARS = 60_000;

/** One line of broker output. `at` is epoch ms. */
export const BrokerLogLineSchema = z.object({
  at: z.number(),
  stream: z.enum(['stdout', 'stderr']),
  line: z.string(),
});
export type BrokerLogLineView = z.infer<typeof BrokerLogLineSchema>;

/** A validation problem: `path` is the dotted key path (`limits.max_queued_per_realm`), or
 * `(root)`; JSON syntax errors carry `line`/`column` (1-based). */
export const SettingsIssueSchema = z.object({
  path: z.string(),
  message: z.string(),
  line: z.number().int().positive().nullable(),
  column: z.number().int().positive().nullable(),
});
export type SettingsIssue = z.infer<typeof SettingsIssueSchema>;

export const SettingsFileSchema = z.object({
  path: z.string(),
  text: z.string(),
  /** False when the file does not exist yet (the broker creates it on start). */
  exists: z.boolean(),
});
export type SettingsFileView = z.infer<typeof SettingsFileSchema>;

export const SettingsCheckSchema = z.object({
  valid: z.boolean(),
  issues: z.array(SettingsIssueSchema),
  /**
   * Keys the broker accepts but ignores (features this build does not implement, e.g.
   * `limits.max_connections`), each with its path: they do not make the text invalid (existing
   * tyo-mq files keep loading) but have no effect. Empty when the text is not valid JSON.
   */
  warnings: z.array(SettingsIssueSchema),
  /** Top-level keys whose change takes a broker restart (start-up only keys). */
  restartKeys: z.array(z.string()),
});
export type SettingsCheck = z.infer<typeof SettingsCheckSchema>;

export const SettingsSaveSchema = SettingsCheckSchema.extend({
  saved: z.boolean(),
  /** How the broker picks the file up: it watches and `reload`s it itself, or was `restart`ed. */
  applied: z.enum(['reload', 'restart', 'none']),
});
export type SettingsSave = z.infer<typeof SettingsSaveSchema>;

export const DemoStatusSchema = z.object({
  connectionId: z.string(),
  running: z.boolean(),
  /** The demo realm (created on start, removed on stop). */
  realm: z.string(),
  startedAt: z.number().nullable(),
  produced: z.number().int().nonnegative(),
  consumed: z.number().int().nonnegative(),
  acked: z.number().int().nonnegative(),
  /** Live socket.io clients of the workload. */
  clients: z.number().int().nonnegative(),
  error: z.string().nullable(),
});
export type DemoStatus = z.infer<typeof DemoStatusSchema>;

/**
 * The methods, given the supervisor status schema of `console-api.ts` (passed in rather than
 * imported, so the two modules do not import each other).
 */
export const localMethods = <Status extends z.ZodTypeAny>(status: Status) =>
  ({
    /** Starts the local broker; resolves once running. Errors as `restartLocalBroker`. */
    startLocalBroker: { input: NoInput, output: status },
    /** Stops the local broker (SIGTERM, SIGKILL after 5 s). */
    stopLocalBroker: { input: NoInput, output: status },
    /** The supervisor's last 500 broker output lines, oldest first. */
    getLocalBrokerLogs: {
      input: NoInput,
      output: z.object({ lines: z.array(BrokerLogLineSchema) }),
    },
    /** The local broker's settings file as text. */
    readLocalSettings: { input: NoInput, output: SettingsFileSchema },
    /** Checks settings text with the broker's own schema (nothing is written). */
    validateLocalSettings: {
      input: z.object({ text: z.string().max(MAX_SETTINGS_CHARS) }).strict(),
      output: SettingsCheckSchema,
    },
    /**
     * Validates and, when valid, writes the settings file atomically (temp file, fsync, rename).
     * The running broker reloads it on its own (file watch); `restart: true` restarts it instead
     * (needed for start-up keys). An invalid text is not written: `saved: false` with the issues.
     */
    saveLocalSettings: {
      input: z.object({ text: z.string().max(MAX_SETTINGS_CHARS), restart: z.boolean() }).strict(),
      output: SettingsSaveSchema,
    },
    /** Starts demo mode against the local broker (`SWB_ERR_VALIDATION` for a remote connection). */
    startDemo: { input: ConnectionIdInput, output: DemoStatusSchema },
    /** Stops demo mode: closes every client and removes the demo realm. */
    stopDemo: { input: ConnectionIdInput, output: DemoStatusSchema },
    getDemo: { input: ConnectionIdInput, output: DemoStatusSchema },
  }) as const;

export const LocalEvents = {
  /** New broker output lines, batched (at most every 250 ms). */
  localBrokerLog: z.object({ lines: z.array(BrokerLogLineSchema) }),
  /** Demo mode status, on every change and every second while it runs. */
  demo: DemoStatusSchema,
} as const;
