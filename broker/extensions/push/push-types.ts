/**
 * The shapes shared by the push-wake modules (`spec/protocol-extensions.md` §6): a registered
 * endpoint (§6.4), a transport's send result (§6.8), the contentless wake payload and its guard
 * (§6.7), and what the rest of the broker sees of push (`PushRuntime`).
 */
import { z } from 'zod';
import { ExtensionLimit } from '../../../shared/protocol-extensions';

/** APNs environments (§6.2 `env`). */
export type ApnsEnv = 'production' | 'sandbox';

/** §6.4: one registered endpoint of (realm, identity); times in epoch ms. */
export interface PushEndpoint {
  transport: string;
  /** Device token, or the endpoint URL for `unifiedpush`. Never logged. */
  token: string;
  app_id: string | null;
  /** `apns` only (null for the other transports). */
  env: ApnsEnv | null;
  added_at: number;
  /** When a wake last succeeded; null before. */
  last_ok: number | null;
}

/** Validates stored endpoint lists when they are loaded from SQLite (§10 with Note 6-F). */
export const PushEndpointListSchema: z.ZodType<PushEndpoint[]> = z
  .array(
    z.object({
      transport: z.string().max(64),
      token: z.string().min(1).max(ExtensionLimit.PUSH_MAX_TOKEN_LENGTH),
      app_id: z.string().max(ExtensionLimit.PUSH_MAX_APP_ID_LENGTH).nullable(),
      env: z.enum(['production', 'sandbox']).nullable(),
      added_at: z.number(),
      last_ok: z.number().nullable(),
    }),
  )
  .max(ExtensionLimit.PUSH_MAX_TOKENS_PER_IDENTITY);

/**
 * §6.8: a transport's answer. `gone`: the provider says the token is dead (pruned);
 * `unsafe`: the URL failed the SSRF guard at send time; `auth`: the broker's own credentials
 * were refused; `retryable`: 429, 5xx, a timeout or a network error (Note 6-E). `detail` is a
 * token-free hint for the log (a provider reason code).
 */
export interface SendResult {
  ok: boolean;
  gone?: boolean;
  unsafe?: boolean;
  auth?: boolean;
  retryable?: boolean;
  detail?: string;
}

/** §6.7: the canonical wake payload. */
export interface WakePayload {
  readonly type: 'wake';
  readonly v: 1;
}

/** One push provider (§6.8). `send` never rejects for a provider answer, only for a bug. */
export interface PushTransport {
  readonly name: string;
  send(endpoint: PushEndpoint, payload: WakePayload): Promise<SendResult>;
  /** Releases sockets and sessions (APNs HTTP/2). */
  close?(): void;
}

/** §6.7: the keys a wake payload must never carry. */
export const FORBIDDEN_WAKE_KEYS: readonly string[] = [
  'sender',
  'from',
  'content',
  'blob',
  'msg_id',
  'msgId',
  'message',
  'payload',
  'to',
  'identity',
  'realm',
  'uak',
];

/** §6.7: builds a wake payload; throws `forbidden key <k>` when `extra` carries content. */
export function buildWakePayload(extra: Readonly<Record<string, unknown>> = {}): WakePayload {
  for (const key of Object.keys(extra)) {
    if (FORBIDDEN_WAKE_KEYS.includes(key)) throw new Error(`forbidden key in wake payload: ${key}`);
  }
  return Object.freeze({ type: 'wake', v: 1 });
}

/** §6.6: the result of one `fireWake`. */
export interface WakeResult {
  sent: number;
  skipped?: 'unconfigured' | 'no-endpoints' | 'coalesced';
}

/** What the broker holds of push (`ExtensionState.pushRuntime`), set by the composition root. */
export interface PushRuntime {
  /** Whether a valid transport configuration is loaded (§6.1). */
  readonly configured: boolean;
  /** Fire-and-forget wake of (realm, identity) after a confirmed offline enqueue (§6.5). */
  wake(realm: string, identity: string): void;
  /** §6.6, awaited (tests and the sealed trigger's callers that want the result). */
  fireWake(realm: string, identity: string): Promise<WakeResult>;
  /**
   * Per-socket PUSH_REGISTER/UNREGISTER fixed 60 s window (§6.2 check 3): false when over the
   * rate. Keyed weakly by the socket object, so a closed socket's window goes with it.
   */
  takeRegisterSlot(socket: object): boolean;
  /** The SSRF guard for a `unifiedpush` URL at registration (§6.8.2). */
  checkEndpointUrl(url: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Warns once when clustered (§6.10). */
  noteRegistration(): void;
  close(): void;
}

/**
 * An invalid push configuration (§6.1); the message is the spec's text. The caller logs
 * `Push wake config invalid: <message> — push disabled`.
 */
export class PushConfigError extends Error {}
