/**
 * The prekey directory's values and their validation (`spec/protocol-extensions.md` §3.1 with
 * Notes 3-C and 3-D): what `PREKEY_PUBLISH` accepts, the pool update, and the zod schema a
 * stored entry must pass when it is loaded from the SQLite store (`identity_state`, kind
 * `prekeys`). Pure functions: the handlers (`prekey-handlers.ts`) own the replies.
 */
import { z } from 'zod';
import {
  ExtensionLimit,
  PrekeyLimit,
  PrekeyText,
  type OneTimePrekey,
  type PrekeyBundle,
} from '../../shared/protocol-extensions';

/** An own property only (as `extension-reply.ts`'s `own`; not imported: no type-only circle). */
function own(payload: Readonly<Record<string, unknown>>, field: string): unknown {
  return Object.prototype.hasOwnProperty.call(payload, field) ? payload[field] : undefined;
}

/** One identity's entry: the static bundle, when it was published, and the one-time pool. */
export interface StoredPrekeys {
  bundle: PrekeyBundle;
  /** ISO-8601 time of the last publish (§3.1; never served). */
  updated_at: string;
  /** Oldest first; at most `PREKEY_POOL_MAX` (100) entries, ids unique (Note 3-D). */
  pool: OneTimePrekey[];
}

const KEY_FIELDS = [
  'identity_key',
  'signed_prekey',
  'signed_prekey_sig',
  'kyber_prekey',
  'kyber_prekey_sig',
] as const;

const key = z.string().min(1).max(ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH);
const id = z.number().int().min(0).max(PrekeyLimit.MAX_ID);

/** The static part of a stored bundle (§3.1), validated again when loaded. */
export const PrekeyBundleSchema: z.ZodType<PrekeyBundle> = z.object({
  identity_key: key,
  registration_id: id,
  device_id: z.number().int().min(PrekeyLimit.MIN_DEVICE_ID).max(PrekeyLimit.MAX_DEVICE_ID),
  signed_prekey_id: id,
  signed_prekey: key,
  signed_prekey_sig: key,
  kyber_prekey_id: id,
  kyber_prekey: key,
  kyber_prekey_sig: key,
});

/** One pooled one-time prekey (§3.1), validated again when loaded. */
export const OneTimePrekeySchema: z.ZodType<OneTimePrekey> = z.object({ id, key });

/** A stored entry, validated again when loaded (a row that does not parse is skipped). */
export const StoredPrekeysSchema: z.ZodType<StoredPrekeys> = z.object({
  bundle: PrekeyBundleSchema,
  updated_at: z.string(),
  pool: z.array(OneTimePrekeySchema).max(ExtensionLimit.PREKEY_POOL_MAX),
});

/**
 * Note 3-C: a number, or a string of decimal digits, that is a safe integer in `min`…`max`
 * after coercion; otherwise null. (`null`, `"7.5"`, `1.5`, `-1`, `"0x10"` are refused.)
 */
export function integerIn(value: unknown, min: number, max: number): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d{1,10}$/.test(value)) n = Number(value);
  else return null;
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}

/** §3.1: a falsy value takes the reference's default; anything else must be in range. */
function idOrDefault(value: unknown, fallback: number, min: number, max: number): number | null {
  return value === undefined || value === null || value === 0 || value === '' || value === false
    ? fallback
    : integerIn(value, min, max);
}

/** The static part of a publish, or the text of the check it fails (§3.1 check 4, Note 3-C). */
export function parseBundle(p: Readonly<Record<string, unknown>>): PrekeyBundle | string {
  const keys: Partial<Record<(typeof KEY_FIELDS)[number], string>> = {};
  for (const field of KEY_FIELDS) {
    const v = own(p, field);
    if (!key.safeParse(v).success) return PrekeyText.STATIC_REQUIRED;
    keys[field] = v as string;
  }
  const max = PrekeyLimit.MAX_ID;
  const registration = idOrDefault(own(p, 'registration_id'), 0, 0, max);
  const device = idOrDefault(
    own(p, 'device_id'),
    1,
    PrekeyLimit.MIN_DEVICE_ID,
    PrekeyLimit.MAX_DEVICE_ID,
  );
  const signedId = idOrDefault(own(p, 'signed_prekey_id'), 0, 0, max);
  const kyberId = idOrDefault(own(p, 'kyber_prekey_id'), 0, 0, max);
  if (registration === null || device === null || signedId === null || kyberId === null) {
    return PrekeyText.BAD_IDS;
  }
  return {
    identity_key: keys.identity_key!,
    registration_id: registration,
    device_id: device,
    signed_prekey_id: signedId,
    signed_prekey: keys.signed_prekey!,
    signed_prekey_sig: keys.signed_prekey_sig!,
    kyber_prekey_id: kyberId,
    kyber_prekey: keys.kyber_prekey!,
    kyber_prekey_sig: keys.kyber_prekey_sig!,
  };
}

/**
 * The cleaned one-time entries of a publish (§3.1 checks 5–6: a missing or non-array value is
 * `[]`), or the text of the check that fails; one bad entry refuses the whole publish.
 */
export function parseOneTime(p: Readonly<Record<string, unknown>>): OneTimePrekey[] | string {
  const raw = own(p, 'one_time_prekeys');
  if (!Array.isArray(raw)) return [];
  if (raw.length > ExtensionLimit.PREKEY_PUBLISH_BATCH_MAX) return PrekeyText.TOO_MANY;
  const out: OneTimePrekey[] = [];
  for (const entry of raw as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return PrekeyText.BAD_ONE_TIME;
    const e = entry as Record<string, unknown>;
    const n = integerIn(own(e, 'id'), 0, PrekeyLimit.MAX_ID);
    const k = own(e, 'key');
    if (n === null || !key.safeParse(k).success) return PrekeyText.BAD_ONE_TIME;
    out.push({ id: n, key: k as string });
  }
  return out;
}

/**
 * §3.1 with Note 3-D: a published id already pooled replaces that entry in place; the others
 * are appended, and the pool is cut to its first 100 (the oldest win, the rest are dropped;
 * `one_time_available` tells the client how many are held).
 */
export function mergePool(pool: readonly OneTimePrekey[], added: readonly OneTimePrekey[]) {
  const next = pool.map((e) => ({ ...e }));
  const at = new Map(next.map((e, i) => [e.id, i]));
  for (const entry of added) {
    const i = at.get(entry.id);
    if (i === undefined) {
      at.set(entry.id, next.length);
      next.push({ ...entry });
    } else {
      next[i] = { ...entry };
    }
  }
  return next.slice(0, ExtensionLimit.PREKEY_POOL_MAX);
}
