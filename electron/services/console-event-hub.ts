/**
 * A typed publish/subscribe hub for the ConsoleApi event streams (`ConsoleEvents` in
 * `shared/console-api.ts`). Transports subscribe to it; services publish into it.
 */
import type { ConsoleEventName, EventPayload } from '../../shared/console-api';

type AnyListener = (payload: unknown) => void;

export class ConsoleEventHub {
  private readonly listeners = new Map<ConsoleEventName, Set<AnyListener>>();

  /** Subscribes to `event`; returns the unsubscribe function. */
  on<E extends ConsoleEventName>(
    event: E,
    listener: (payload: EventPayload<E>) => void,
  ): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    const entry = listener as AnyListener;
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** Delivers `payload` to every listener of `event`. A throwing listener does not stop the others. */
  emit<E extends ConsoleEventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(payload);
      } catch (error) {
        // A broken transport must not take down the service that publishes.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** Number of listeners of `event` (for tests and leak checks). */
  listenerCount(event: ConsoleEventName): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  /** Drops every listener. */
  clear(): void {
    this.listeners.clear();
  }
}
