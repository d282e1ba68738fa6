/**
 * The tyo-mq 1.1 extension events' constants, reply codes and message texts, in one place.
 *
 * Source: `spec/protocol-extensions.md` §1.2 (reply convention: HTTP-like codes), §1.7
 * (constants, from tyo-mq `cd08b98` `lib/constants.js`) and §2.1 (the key directory's texts).
 * Clients match on substrings of the texts, so they are part of the contract character for
 * character (the em dash is U+2014). Event names live in `protocol-events.ts`.
 */

/** §1.7: the numeric limits. None is a setting in the reference. */
export const ExtensionLimit = {
  /** Chars: `public_key`, every prekey field, `identity_key` of `SEALED_CERT_REQUEST`. */
  E2EE_MAX_PUBLIC_KEY_LENGTH: 4096,
  /** Chars: `key_id` and `alg` of `KEY_PUBLISH`. */
  E2EE_MAX_KEY_ID_LENGTH: 128,
  /** Distinct `key_id`s per (realm, identity). */
  E2EE_MAX_KEYS_PER_IDENTITY: 8,
  /** One-time prekeys per identity (§3). */
  PREKEY_POOL_MAX: 100,
  /** One-time prekeys in one `PREKEY_PUBLISH` (§3). */
  PREKEY_PUBLISH_BATCH_MAX: 100,
  /** Ms: sender-certificate lifetime (§4). */
  SEALED_CERT_TTL_MS: 86_400_000,
  /** Bytes: UAK after base64 decoding (§4). */
  SEALED_UAK_LENGTH: 16,
  /** Chars: `SEALED_DELIVER.blob` (65,536 bytes as base64: ceil(65536×4/3)+4). */
  SEALED_MAX_BLOB_CHARS: 87_386,
  /** Per socket per fixed 60 s window (§4.6). */
  SEALED_SENDS_PER_MIN: 60,
  /** Messages per `SEALED_SUBSCRIBE` (§4.8). */
  SEALED_REPLAY_BATCH: 100,
  /** Push endpoints per identity (§6). */
  PUSH_MAX_TOKENS_PER_IDENTITY: 10,
  /** Ms: one wake per (realm, identity) per window (§6.5). */
  PUSH_COALESCE_WINDOW_MS: 30_000,
  /** Chars: push token or endpoint URL (§6.2). */
  PUSH_MAX_TOKEN_LENGTH: 4096,
  /** Chars: `app_id` (§6.2). */
  PUSH_MAX_APP_ID_LENGTH: 128,
  /** Per socket per fixed 60 s window, `PUSH_REGISTER` and `PUSH_UNREGISTER` together. */
  PUSH_REGISTERS_PER_MIN: 30,
  /** Ms: every provider request (§6.8). */
  PUSH_HTTP_TIMEOUT_MS: 5_000,
  /** Bytes: provider response bodies that are read (§6.8). */
  PUSH_RESP_MAX_BYTES: 8_192,
  /** Ms: at most one wake-failure warning per (transport, reason) per window (§6.6). */
  PUSH_FAIL_LOG_WINDOW_MS: 60_000,
  /** Ms: APNs provider-token reuse (§6.8.4). */
  APNS_JWT_REFRESH_MS: 2_400_000,
  /** Ms: an FCM access token is re-minted this long before it expires (§6.8.3). */
  FCM_TOKEN_REFRESH_MARGIN_MS: 60_000,
} as const;

/** §1.2: the `code` of a failure reply (HTTP-like). */
export const ExtensionCode = {
  BAD_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  STORAGE: 500,
  NOT_CONFIGURED: 501,
  /** Switchboard (Note 3-E): the cluster's shared directory (Redis) cannot be reached. */
  UNAVAILABLE: 503,
  QUEUE_FULL: 507,
} as const;

/** §1.2: a failure reply, `{ok:false, code, message}`. */
export interface ExtensionFailure {
  ok: false;
  code: number;
  message: string;
}

/** §1.3, §2.1: the texts shared by the families and the key directory's own. */
export const ExtensionText = {
  INVALID_JSON: 'invalid JSON',
  IDENTITY_REQUIRED: 'identity is required',
  PUBLIC_KEY_REQUIRED: 'public_key is required',
  PUBLIC_KEY_TOO_LONG: `public_key exceeds ${ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH} characters`,
  BAD_KEY_ID: `key_id must be a string of at most ${ExtensionLimit.E2EE_MAX_KEY_ID_LENGTH} characters`,
  BAD_ALG: `alg must be a string of at most ${ExtensionLimit.E2EE_MAX_KEY_ID_LENGTH} characters`,
  /** Switchboard: clustered, Redis unreachable when `list_identities` reads the shared keys and pins (503). */
  DIRECTORY_UNAVAILABLE: 'key directory unavailable: the cluster store (Redis) cannot be reached',
  TOO_MANY_KEYS: `identity already has ${ExtensionLimit.E2EE_MAX_KEYS_PER_IDENTITY} published keys \u2014 republish an existing key_id or rotate`,
} as const;

/** §2.1 check 7 (and the other acting events' 403): the identity is not this socket's. */
export function notRegisteredText(identity: string): string {
  return `identity '${identity}' is not registered on this connection`;
}

/** Note 2-C (Switchboard setting `e2ee.max_key_identities_per_realm`): the realm is full. */
export function tooManyKeyIdentitiesText(realm: string, cap: number): string {
  return `realm '${realm}' already has ${cap} identities with published keys`;
}

/** Note 2-F (Switchboard extension): `KEY_PUBLISH` unpublishing a key id the identity lacks. */
export function unknownKeyText(identity: string, keyId: string): string {
  return `no key '${keyId}' for '${identity}'`;
}

/** §2.6: the `ERROR` text (code -6) of a cleartext `PRODUCE` into a `required` realm. */
export function e2eeRequiredText(realm: string): string {
  return `Realm '${realm}' requires end-to-end encrypted messages`;
}

/** §2.1: the defaults of `KEY_PUBLISH`. */
export const KeyDefaults = {
  KEY_ID: 'default',
  ALG: 'ecdh-es-p256-a256gcm',
} as const;

/** §2.1–§2.2: one entry of an identity's key list, as stored and as answered. */
export interface PublishedKey {
  key_id: string;
  alg: string;
  public_key: string;
  /** ISO-8601 time of the last publish of this `key_id`. */
  updated_at: string;
}

/** §1.6: the values of `auth.realms.<realm>.e2ee` that mean something; anything else is off. */
export const E2eePolicy = {
  OPPORTUNISTIC: 'opportunistic',
  REQUIRED: 'required',
} as const;

/** §3.1, with Note 3-C's ranges (Switchboard decision: libsignal's, as §4.3 uses). */
export const PrekeyLimit = {
  /** Largest `id`, `registration_id`, `signed_prekey_id`, `kyber_prekey_id` (uint32). */
  MAX_ID: 4_294_967_295,
  /** `device_id` range. */
  MIN_DEVICE_ID: 1,
  MAX_DEVICE_ID: 127,
  /** Note 3-B: default of `e2ee.prekey_takes_per_minute` (per socket, fixed 60 s window). */
  TAKES_PER_MINUTE: 60,
  /** Note 3-B's per-target budget: one-time keys one requester may take of one identity an hour. */
  TAKES_PER_TARGET_PER_HOUR: 5,
} as const;

/** §3.1: the texts of `PREKEY_PUBLISH`'s checks 4–6 (and Note 3-C's range check). */
export const PrekeyText = {
  STATIC_REQUIRED: `identity_key, signed_prekey (+sig) and kyber_prekey (+sig) are required (base64, <= ${ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH} chars)`,
  TOO_MANY: `one_time_prekeys exceeds ${ExtensionLimit.PREKEY_PUBLISH_BATCH_MAX} per publish`,
  BAD_ONE_TIME: `each one-time prekey must be {id: integer, key: base64 <= ${ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH} chars}`,
  /** Switchboard (Note 3-E): clustered, Redis unreachable on a publish or a take (503). */
  UNAVAILABLE: 'prekey directory unavailable: the cluster store (Redis) cannot be reached',
  /** Switchboard (Note 3-C): the reference coerces these silently. */
  BAD_IDS: `registration_id, signed_prekey_id and kyber_prekey_id must be integers in 0..${PrekeyLimit.MAX_ID}, device_id in ${PrekeyLimit.MIN_DEVICE_ID}..${PrekeyLimit.MAX_DEVICE_ID}`,
} as const;

/** §3.1: the static part of a prekey bundle, as stored and as served by `PREKEY_TAKE`. */
export interface PrekeyBundle {
  identity_key: string;
  registration_id: number;
  device_id: number;
  signed_prekey_id: number;
  signed_prekey: string;
  signed_prekey_sig: string;
  kyber_prekey_id: number;
  kyber_prekey: string;
  kyber_prekey_sig: string;
}

/** §3.1: one one-time prekey. */
export interface OneTimePrekey {
  id: number;
  key: string;
}

/** §4.4–§4.8: the sealed-sender texts (character for character). */
export const SealedText = {
  NOT_CONFIGURED: 'sealed sender not configured on this broker',
  IDENTITY_REQUIRED: 'identity required',
  NOT_OWNED: 'identity not registered on this connection',
  REALM_OFF: 'sealed sender not enabled for this realm',
  IDENTITY_KEY_REQUIRED: 'identity_key required',
  CANNOT_ISSUE: 'could not issue certificate',
  INVALID_MODE: 'invalid mode',
  UAK_REQUIRED: 'uak (16 bytes) required for require-uak mode',
  RATE_EXCEEDED: 'sealed send rate exceeded',
  DELIVER_FIELDS: 'to.realm, to.identity, blob required',
  BLOB_TOO_LARGE: 'blob too large',
  INVALID_MSG_ID: 'invalid msg_id',
  DESTINATION_OFF: 'sealed sender not enabled for the destination realm',
  NOT_REACHABLE: 'recipient not reachable',
  NOT_AUTHORISED: 'not authorised',
  QUEUE_FULL: 'recipient queue full',
  DELIVERY_FAILED: 'delivery failed',
  /** Switchboard (clustered, Note 4-J): the shared UAK records cannot be read or written. */
  UNAVAILABLE: 'sealed UAK registry unavailable: the cluster store (Redis) cannot be reached',
} as const;

/** §4.5: the UAK modes. */
export const SealedMode = {
  REQUIRE_UAK: 'require-uak',
  UNRESTRICTED: 'unrestricted',
} as const;

/** §1.7 "Other sealed caps", the inbox TTL and the environment of §4.1 / §9. */
export const SealedLimit = {
  /** Chars: `to.realm` and `to.identity`. */
  MAX_DESTINATION_CHARS: 256,
  /** Chars: `msg_id`. */
  MAX_MSG_ID_CHARS: 128,
  /** Chars: the UAK string before decoding. */
  MAX_UAK_CHARS: 64,
  /** Ms: the fixed send window of `SEALED_SENDS_PER_MIN`. */
  SEND_WINDOW_MS: 60_000,
  /** Seconds: default sealed inbox TTL (7 days). */
  INBOX_TTL_SECONDS: 604_800,
  /** `senderDevice` range of a sender certificate. */
  MAX_DEVICE_ID: 127,
  /** libsignal's revoked server-certificate key id: never minted. */
  REVOKED_KEY_ID: 0xdeadc357,
} as const;

/** §4.1, §9, Note 4-H: the environment variables of sealed sender. */
export const SealedEnv = {
  SERVER_CERT: 'TYO_MQ_SEALED_SERVER_CERT',
  SERVER_KEY: 'TYO_MQ_SEALED_SERVER_KEY',
  SERVER_CERT_FILE: 'TYO_MQ_SEALED_SERVER_CERT_FILE',
  SERVER_KEY_FILE: 'TYO_MQ_SEALED_SERVER_KEY_FILE',
  INBOX_TTL_SECONDS: 'TYO_MQ_SEALED_INBOX_TTL_SECONDS',
} as const;

/** §6.2–§6.3: the push registration texts (part of the contract, character for character). */
export const PushText = {
  NOT_CONFIGURED: 'push wake not configured on this broker',
  /** Switchboard (Note 6-G): clustered, the shared registry (Redis) cannot be reached. */
  UNAVAILABLE: 'push registry unavailable: the cluster store (Redis) cannot be reached',
  RATE_EXCEEDED: 'push register rate exceeded',
  IDENTITY_REQUIRED: 'identity required',
  NOT_OWNED: 'identity not registered on this connection',
  UNKNOWN_TRANSPORT: 'unknown or unsupported transport',
  TOKEN_REQUIRED: 'token/endpoint required',
  BAD_APP_ID: 'invalid app_id',
  BAD_ENV: "env must be 'sandbox' or 'production'",
  URL_REJECTED: 'endpoint URL rejected (unsafe or unroutable)',
  URL_CHECK_FAILED: 'endpoint URL validation failed',
  UNREGISTER_REQUIRED: 'transport and token/endpoint required',
} as const;

/** §6.2: the transport names a client may register. */
export const PUSH_TRANSPORTS = ['null', 'unifiedpush', 'fcm', 'apns'] as const;
export type PushTransportName = (typeof PUSH_TRANSPORTS)[number];
