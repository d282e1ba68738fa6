/**
 * The delivery id of `spec/protocol-extensions.md` §5.6: the id SSE frames carry (`id:`) and
 * `POST /pub` answers as `msg_id`. On the origin node it is the producer's own `id` when that
 * is well-formed (Note 5-E: `^[A-Za-z0-9._:-]{1,128}$`, so a client string never becomes an
 * arbitrary key), else `"m-" + 24 lowercase hex chars`.
 */
import { randomBytes } from 'node:crypto';

/** A client-chosen delivery id is used only when it matches this (Note 5-E). */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** `"m-" + 24 hex` (§5.6). */
export const newDeliveryId = (): string => `m-${randomBytes(12).toString('hex')}`;

/** The producer's `id` when it is a well-formed delivery id, else undefined (one regex test). */
export function clientDeliveryId(id: unknown): string | undefined {
  return typeof id === 'string' && CLIENT_ID_PATTERN.test(id) ? id : undefined;
}
