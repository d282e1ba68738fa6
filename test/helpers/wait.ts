/**
 * Waiting primitives for protocol tests: one event, n events, "nothing arrives", a condition.
 *
 * Every helper takes a listener-style socket (socket.io-client `Socket` or anything with `on`/`off`)
 * and registers its listener synchronously, so call it *before* triggering the traffic:
 *
 *   const got = waitFor(consumer, consumeEvent(key));
 *   produce(producer, 'job', 1);
 *   expect(await got).toEqual(…);
 */

/** Anything we can listen on: socket.io-client sockets and the EIO3 test client. */
export interface Listenable {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

export const DEFAULT_WAIT_MS = 5_000;
/** "Nothing arrives" checks wait this long (the brief: ~200–300 ms). */
export const QUIET_MS = 250;

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with the first argument of the next `event` on `socket`; rejects after `timeoutMs`. */
export function waitFor<T = unknown>(
  socket: Listenable,
  event: string,
  timeoutMs = DEFAULT_WAIT_MS,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const listener = (...args: unknown[]): void => {
      clearTimeout(timer);
      socket.off(event, listener);
      resolve(args[0] as T);
    };
    const timer = setTimeout(() => {
      socket.off(event, listener);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for "${event}"`));
    }, timeoutMs);
    socket.on(event, listener);
  });
}

/** Resolves with the first arguments of the next `n` `event`s; rejects with what arrived on timeout. */
export function collect<T = unknown>(
  socket: Listenable,
  event: string,
  n: number,
  timeoutMs = DEFAULT_WAIT_MS * 2,
): Promise<T[]> {
  return new Promise<T[]>((resolve, reject) => {
    const got: T[] = [];
    const listener = (...args: unknown[]): void => {
      got.push(args[0] as T);
      if (got.length === n) {
        clearTimeout(timer);
        socket.off(event, listener);
        resolve(got);
      }
    };
    const timer = setTimeout(() => {
      socket.off(event, listener);
      const sample = JSON.stringify(got.slice(0, 3)).slice(0, 300);
      reject(
        new Error(
          `timed out after ${timeoutMs} ms: got ${got.length}/${n} "${event}" events; first: ${sample}`,
        ),
      );
    }, timeoutMs);
    if (n === 0) {
      clearTimeout(timer);
      resolve(got);
      return;
    }
    socket.on(event, listener);
  });
}

/**
 * Resolves if no `event` arrives within `ms`; rejects (naming the payload) if one does.
 * Await it: `await expectNothing(consumer, consumeEvent(key))`.
 */
export function expectNothing(socket: Listenable, event: string, ms = QUIET_MS): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const got: unknown[] = [];
    const listener = (...args: unknown[]): void => {
      got.push(args[0]);
    };
    socket.on(event, listener);
    setTimeout(() => {
      socket.off(event, listener);
      if (got.length === 0) resolve();
      else
        reject(
          new Error(
            `expected no "${event}" within ${ms} ms, got ${got.length}: ${JSON.stringify(got[0]).slice(0, 300)}`,
          ),
        );
    }, ms);
  });
}

/** Polls `condition` every 10 ms until it holds; rejects with `what` after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  timeoutMs = DEFAULT_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await delay(10);
  }
}

/**
 * As `waitUntil`, for a condition that must ask something (HTTP, Redis): polls every 25 ms,
 * one question at a time; a question that throws counts as not yet.
 */
export async function waitUntilAsync(
  condition: () => Promise<boolean>,
  what: string,
  timeoutMs = DEFAULT_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await delay(25);
  }
}
