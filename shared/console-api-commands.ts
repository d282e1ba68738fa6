/**
 * ConsoleApi entries of the Command console (issue 27): any management command of the
 * catalogue (`management-command-catalogue.ts`) previewed as the exact signed envelope the host
 * would send (`spec/protocol-admin.md` §6.1, secrets masked), run — the previewed envelope
 * itself, once — and the last runs of each connection. Spread into `ConsoleMethods` by
 * `console-api.ts`.
 *
 * Secrets: the proof's `timestamp`, `nonce` and `signature` and every `secret` parameter are
 * shown as `SECRET_MASK`; the host keeps the signed envelope until it is sent or expires.
 * History lives in the host's memory only (parameters may be sensitive even when not secret).
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
/** Command names are short snake_case words; anything else is refused before the catalogue. */
const CommandName = z.string().min(1).max(64);
/** Parameter values as the form built them: names ≤ 64 characters, JSON values. */
const Params = z.record(z.string().min(1).max(64), z.unknown());

/** Runs kept per connection. */
export const COMMAND_HISTORY_SIZE = 50;

/**
 * How long a preview's envelope may still be sent, ms: inside the broker's ±5 min proof window
 * (§6.3) with a minute to spare for a slow network.
 */
export const COMMAND_PREVIEW_TTL_MS = 240_000;

/** The signer of a connection's commands (its credential's kind; never the secret). */
export const CommandSignerSchema = z.object({
  kind: z.enum(['admin', 'realm-manager']),
  /** The realm of a realm manager key, else null. */
  realm: z.string().nullable(),
});
export type CommandSigner = z.infer<typeof CommandSignerSchema>;

/** The input shared by preview and run: which command with which parameters. */
const CommandCall = {
  connectionId: ConnectionId,
  command: CommandName,
  params: Params,
};

/** A previewed envelope, ready to be sent by `commandRun` with its `previewId`. */
export const CommandPreviewSchema = z.object({
  previewId: z.string(),
  connectionId: z.string(),
  command: z.string(),
  /** The socket.io event it is sent as (`AUTH_MANAGEMENT_COMMAND`). */
  event: z.string(),
  /** `{body, proof}` as JSON text (2-space indent, body keys sorted as STABLE_JSON signs them). */
  envelopeText: z.string(),
  /** When it was signed / until when `commandRun` accepts it, epoch ms. */
  signedAt: z.number(),
  expiresAt: z.number(),
  destructive: z.boolean(),
  signer: CommandSignerSchema,
  /** Why the broker will probably refuse it (an admin-only command under a realm key), else null. */
  warning: z.string().nullable(),
});
export type CommandPreview = z.infer<typeof CommandPreviewSchema>;

/** One run, as history keeps it. `params` with secrets masked; `at` epoch ms. */
export const CommandRunEntrySchema = z.object({
  id: z.string(),
  at: z.number(),
  command: z.string(),
  params: z.record(z.string(), z.unknown()),
  ok: z.boolean(),
  /** The broker's refusal code (400, 401, 404, 501…) or null when it answered ok. */
  code: z.number().nullable(),
  message: z.string().nullable(),
  durationMs: z.number().nonnegative(),
});
export type CommandRunEntry = z.infer<typeof CommandRunEntrySchema>;

/**
 * A run's outcome: the broker's reply as received (`{ok: true, …}` or `{ok: false, code,
 * message}`, §1) and its history entry. `unsupported`: the broker does not know the command
 * (a plain tyo-mq broker asked for an extension).
 */
export const CommandRunSchema = z.object({
  connectionId: z.string(),
  reply: z.unknown(),
  entry: CommandRunEntrySchema,
  unsupported: z.boolean(),
});
export type CommandRun = z.infer<typeof CommandRunSchema>;

export const CommandsMethods = {
  /**
   * Signs `command` with `params` for `connectionId` and returns the envelope as it would be
   * sent, secrets masked. Nothing is sent. Errors: `SWB_ERR_VALIDATION` (a command not in the
   * catalogue, an unknown parameter, a missing required one or a value of the wrong type),
   * `SWB_ERR_NOT_FOUND` (unknown connection), `SWB_ERR_UNAUTHORIZED` (no credential),
   * `SWB_ERR_BROKER_NOT_RUNNING` / `SWB_ERR_BROKER_UNREACHABLE`.
   */
  commandPreview: {
    input: z.object(CommandCall).strict(),
    output: CommandPreviewSchema,
  },
  /**
   * Sends the envelope of `previewId` — which must have been previewed for exactly this
   * connection, command and parameters, within `COMMAND_PREVIEW_TTL_MS`, and not sent yet — and
   * returns the broker's reply (a refusal is a reply, not an error) with the time it took.
   * Destructive commands need a confirmation (`console-api-confirm.ts`). Recorded in Activity
   * (secrets as `<set>`). Errors: as `commandPreview`; `SWB_ERR_VALIDATION` when the preview is
   * unknown, used, expired or for another call (preview again); `SWB_ERR_BROKER_UNREACHABLE`
   * when no answer came within the timeout.
   */
  commandRun: {
    input: z.object({ ...CommandCall, previewId: z.string().min(1).max(64) }).strict(),
    output: CommandRunSchema,
  },
  /** The last `COMMAND_HISTORY_SIZE` runs of `connectionId`, newest first (memory only). */
  commandHistory: {
    input: z.object({ connectionId: ConnectionId }).strict(),
    output: z.object({ connectionId: z.string(), entries: z.array(CommandRunEntrySchema) }),
  },
} as const;
