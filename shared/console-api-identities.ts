/**
 * ConsoleApi entries of the E2EE identities view (issue 28, console): a realm's identities as
 * the tyo-mq 1.1 extensions keep them — published keys, the principal pin, prekey stock, push
 * registrations, the sealed-sender UAK mode — and an operator's revoke of a key.
 * Spread into `ConsoleMethods` by `console-api.ts`.
 *
 * Source: the Switchboard management commands `list_identities`, `revoke_identity_key`
 * (docs/management.md "E2EE identities"). No secret is carried: keys as SHA-256 fingerprints,
 * pins as a 12-hex-char prefix of the principal, push tokens as their last 6 characters.
 * Times are ISO-8601 strings as the broker sent them.
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
const Realm = z.string().min(1).max(256);
const Name = z.string().min(1).max(1_024);

/** Largest page of `listIdentities` (the broker's `list_identities` limit). */
export const MAX_IDENTITY_PAGE = 1_000;
/** Fewer one-time prekeys left than this: the view warns (the pool runs dry soon). */
export const PREKEY_LOW_WATER = 10;

export const IdentityKeySchema = z.object({
  keyId: z.string(),
  alg: z.string(),
  /** SHA-256 hex of the public key as published. */
  fingerprint: z.string(),
  publishedAt: z.string(),
});
export type IdentityKey = z.infer<typeof IdentityKeySchema>;

export const IdentityPushSchema = z.object({
  transport: z.string(),
  appId: z.string().nullable(),
  /** `…` and the token's last 6 characters. */
  tokenMasked: z.string(),
  registeredAt: z.string(),
  lastOkAt: z.string().nullable(),
  /** null: no wake remembered by the broker since it started. */
  lastWakeOutcome: z.enum(['ok', 'not_delivered']).nullable(),
});
export type IdentityPush = z.infer<typeof IdentityPushSchema>;

export const IdentityRowSchema = z.object({
  identity: z.string(),
  keys: z.array(IdentityKeySchema),
  /** The first 12 hex characters of the pinned principal (a token's hash); null: unpinned. */
  principalPrefix: z.string().nullable(),
  /** null: no prekey bundle. */
  prekeys: z
    .object({
      oneTimeAvailable: z.number().int().nonnegative(),
      signedPrekeyId: z.number().int().nonnegative(),
      updatedAt: z.string(),
    })
    .nullable(),
  push: z.array(IdentityPushSchema),
  lastWakeAt: z.string().nullable(),
  sealedUakMode: z.string().nullable(),
});
export type IdentityRow = z.infer<typeof IdentityRowSchema>;

/**
 * A page of identities. `state`: `ok`, or `unsupported` (the broker does not offer
 * `list_identities`: a plain tyo-mq broker, an older Switchboard; `identities` empty).
 */
export const IdentityListSchema = z.object({
  connectionId: z.string(),
  state: z.enum(['ok', 'unsupported']),
  realm: z.string(),
  identities: z.array(IdentityRowSchema),
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: z.string().nullable(),
  /** When the broker answered, epoch ms. */
  fetchedAt: z.number(),
});
export type IdentityList = z.infer<typeof IdentityListSchema>;

export const IdentityMethods = {
  /**
   * The identities of `realm`, sorted by name (signed `list_identities`). Errors:
   * `SWB_ERR_NOT_FOUND` (unknown connection), `SWB_ERR_BROKER_UNREACHABLE`,
   * `SWB_ERR_UNAUTHORIZED`, `SWB_ERR_VALIDATION`.
   */
  listIdentities: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: Realm,
        cursor: Name.nullable().optional(),
        limit: z.number().int().min(1).max(MAX_IDENTITY_PAGE).optional(),
        /** Only identities whose name holds this text, case-insensitive (`contains`). */
        contains: z.string().min(1).max(1_024).optional(),
      })
      .strict(),
    output: IdentityListSchema,
  },
  /**
   * Deletes the key `keyId` of `identity` (every key without one) and, with `unpin`, its
   * principal pin (signed `revoke_identity_key`). Needs a confirmation
   * (`console-api-confirm.ts`). Errors as `listIdentities`; `SWB_ERR_NOT_FOUND` when there is
   * nothing to revoke.
   */
  revokeIdentityKey: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: Realm,
        identity: Name,
        keyId: Name.optional(),
        unpin: z.boolean().optional(),
      })
      .strict(),
    output: z.object({
      connectionId: z.string(),
      removedKeys: z.array(z.string()),
      unpinned: z.boolean(),
      summary: z.string(),
    }),
  },
} as const;
