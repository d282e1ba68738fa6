/**
 * What `Delivery` is handed by the composition root: the socket.io broadcast it sends plain
 * copies with, and the hook told of each copy written for an offline consumer (push wake,
 * `spec/protocol-extensions.md` §6.5 trigger 2). Types only; their own module keeps
 * delivery.ts within its size.
 */
import type { ErrorInfo } from '../../shared/error-catalogue';
import type { DeliveryEnvelope } from '../../shared/protocol-events';

/** Outcome of storing one durable copy; never a rejected promise. */
export type StoreOutcome = { ok: true; msgId: string } | { ok: false; error: ErrorInfo };

/** Emits one packet to several local sockets, encoding it once (socket.io broadcast). */
export type LocalBroadcast = (
  socketIds: string[],
  eventName: `CONSUME-${string}`,
  envelope: DeliveryEnvelope,
) => void;

/**
 * Told (realm, consumer name, the write) for every copy stored for an offline consumer; it
 * must not throw and must act only once `stored` resolves `ok` (R99: a wake never makes a
 * delivery fail).
 */
export type OfflineStoredHook = (
  realm: string,
  consumer: string,
  stored: Promise<StoreOutcome>,
) => void;
