/**
 * ConsoleApi entries of the Definitions view (issue 27, "Definitions export/import"; like
 * RabbitMQ's definitions file): export a broker's realms, tokens' metadata, validators and
 * settings as one versioned JSON document (`definitions-document.ts`), and import one into a
 * broker — a diff first (`definitions-diff.ts`), then the applicable rows as signed management
 * commands (docs/management.md), each recorded in Activity, with a result per row.
 *
 * Secrets: without a passphrase realm keys are exported as SHA-256 only; with one (opt-in) they
 * are encrypted in the host (electron/services/definitions-crypto.ts) and the renderer receives
 * only the ciphertext document. The passphrase is typed in the page and sent to the host once
 * per call; it is never stored or logged. Spread into `ConsoleMethods` by `console-api.ts`.
 */
import { z } from 'zod';
import { DefinitionsDiffSchema, DiffKind, DiffStatus } from './definitions-diff';
import { MAX_DEFINITIONS_CHARS } from './definitions-document';

/**
 * Largest request body, in bytes, the web host accepts for `previewDefinitions` and
 * `applyDefinitions` (every other call keeps its 64 KiB): a document of `MAX_DEFINITIONS_CHARS`
 * characters as a JSON string, at up to 3 UTF-8 bytes a character, and the other fields. A
 * 600-realm file is about 142 KB (trial finding 15).
 */
export const DEFINITIONS_MAX_BODY_BYTES = 3 * MAX_DEFINITIONS_CHARS + 64 * 1024;

const ConnectionId = z.string().min(1).max(128);
/** A passphrase: 8 to 1,024 characters (the host refuses shorter ones for export). */
const Passphrase = z.string().min(1).max(1_024);
const DocumentText = z.string().min(1).max(MAX_DEFINITIONS_CHARS);

export const DefinitionsExportSchema = z.object({
  connectionId: z.string(),
  /** A suggested file name, `switchboard-definitions-<connection>-<date>.json`. */
  fileName: z.string(),
  /** The document as JSON text (2-space indent), what the page saves. */
  text: z.string(),
  encrypted: z.boolean(),
  realms: z.number(),
  tokens: z.number(),
});
export type DefinitionsExport = z.infer<typeof DefinitionsExportSchema>;

export const DefinitionsPreviewSchema = z.object({
  connectionId: z.string(),
  /** Where the document came from (its `broker` and `exported_at`). */
  source: z.object({ name: z.string(), url: z.string(), exportedAt: z.string() }),
  encrypted: z.boolean(),
  diff: DefinitionsDiffSchema,
});
export type DefinitionsPreview = z.infer<typeof DefinitionsPreviewSchema>;

/** One command sent for a row: the broker's refusal code and message when it refused. */
export const AppliedCommandSchema = z.object({
  command: z.string(),
  ok: z.boolean(),
  code: z.number().nullable(),
  message: z.string().nullable(),
});

/** One row's outcome: `ok` when every command succeeded; `skipped` rows sent nothing. */
export const ApplyResultSchema = z.object({
  id: z.string(),
  kind: DiffKind,
  name: z.string(),
  status: DiffStatus,
  outcome: z.enum(['ok', 'error', 'skipped']),
  commands: z.array(AppliedCommandSchema),
  notes: z.array(z.string()),
});
export type ApplyResult = z.infer<typeof ApplyResultSchema>;

export const DefinitionsApplySchema = z.object({
  connectionId: z.string(),
  results: z.array(ApplyResultSchema),
  applied: z.number(),
  failed: z.number(),
  skipped: z.number(),
});
export type DefinitionsApply = z.infer<typeof DefinitionsApplySchema>;

const ImportInput = {
  connectionId: ConnectionId,
  text: DocumentText,
  /** Decrypts `encrypted_keys`; without it an encrypted document imports as hashed. */
  passphrase: Passphrase.optional(),
};

export const DefinitionsMethods = {
  /**
   * Reads the connection's definitions (signed `get` and `realm_keys`, with `reveal` only when
   * encrypting) and returns the document. Errors: `SWB_ERR_VALIDATION` (passphrase under 8
   * characters), `SWB_ERR_NOT_SUPPORTED` (a broker without `realm_keys`, e.g. plain tyo-mq),
   * and those of the connection (`SWB_ERR_NOT_FOUND`, `SWB_ERR_UNAUTHORIZED`,
   * `SWB_ERR_BROKER_UNREACHABLE`, `SWB_ERR_BROKER_NOT_RUNNING`).
   */
  exportDefinitions: {
    input: z.object({ connectionId: ConnectionId, passphrase: Passphrase.optional() }).strict(),
    output: DefinitionsExportSchema,
  },
  /**
   * Parses `text` and diffs it against the connection's current definitions; sends no change.
   * Errors: `SWB_ERR_VALIDATION` (bad JSON, another format or version, a bad shape, a wrong
   * passphrase), and those of `exportDefinitions`.
   */
  previewDefinitions: {
    input: z.object(ImportInput).strict(),
    output: DefinitionsPreviewSchema,
  },
  /**
   * Diffs again (against the broker as it is now) and applies every applicable row — removals
   * only with `applyRemovals` — as signed commands, one row after another; a refused command
   * stops its row (reported `error`) but not the others. Needs a confirmation. Errors: as
   * `previewDefinitions` (then nothing is applied).
   */
  applyDefinitions: {
    input: z.object({ ...ImportInput, applyRemovals: z.boolean() }).strict(),
    output: DefinitionsApplySchema,
  },
} as const;
