/**
 * Watches each connection's oldest pending authorization request and how many are pending
 * (`list_requests` of one entry, else `AUTHORIZATION_NEXT`, every `intervalMs`) and reports
 * changes, so a new request appears in the console without a reload.
 * The protocol pushes nothing to managers (§7), hence the poll.
 *
 * A connection whose signed commands the broker refuses (a wrong admin token or manager key) is
 * asked less and less often (refusal-backoff.ts), and `onRefusal` says so, so the remote broker
 * does not log a refusal every round.
 */
import type { PendingRequest } from '../../shared/console-api';
import type { SwitchboardError } from '../../shared/error-catalogue';
import type { ManagerPool } from './manager-pool';
import { toAuthorizationRequest } from './manager-pool';
import { RefusalBackoff, type BackoffState, type RefusalBackoffOptions } from './refusal-backoff';

/** A connection's refused signed commands: the backoff applied and why. */
export interface CommandRefusal {
  backoff: BackoffState;
  problem: string;
}
import { oldestPending } from './pending-requests';

export interface RequestWatcherOptions {
  pool: ManagerPool;
  /** Connections to watch, asked before every round. */
  connectionIds: () => string[];
  /**
   * The realm to ask for (a realm manager key signs `AUTHORIZATION_NEXT` for its own realm
   * only); undefined: every realm (an admin token).
   */
  realmOf?: (connectionId: string) => string | undefined;
  onChange: (pending: PendingRequest) => void;
  /** Period in ms. Default 1000. */
  intervalMs?: number;
  /** Backoff after refusals (default 2 s doubling to 60 s). */
  refusalBackoff?: RefusalBackoffOptions;
  /** A connection's commands were refused (with the backoff), or are accepted again (null). */
  onRefusal?: (connectionId: string, refusal: CommandRefusal | null) => void;
}

export class RequestWatcher {
  private readonly last = new Map<string, string>();
  private readonly backoffs = new Map<string, RefusalBackoff>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly options: RequestWatcherOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.round(), this.options.intervalMs ?? 1_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Forgets a connection's backoff (its profile was edited or removed). */
  forget(connectionId: string): void {
    this.backoffs.delete(connectionId);
  }

  /** Records `pending` as seen (a call result), so only later changes are reported. */
  seen(pending: PendingRequest): void {
    this.last.set(pending.connectionId, key(pending));
  }

  /** Checks every connection once; overlapping rounds are skipped. */
  async round(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      // In parallel: a remote broker that does not answer (a 5 s timeout) must not delay the
      // others' requests.
      await Promise.all(
        this.options.connectionIds().map(async (connectionId) => {
          const backoff = this.backoffs.get(connectionId);
          if (backoff && !backoff.ready()) return;
          let client: ReturnType<ManagerPool['get']>;
          try {
            client = this.options.pool.get(connectionId);
          } catch {
            return; // No credential, or the local broker is down: nothing was refused.
          }
          let pending: PendingRequest;
          try {
            const { request, total } = await oldestPending(
              client,
              this.options.realmOf?.(connectionId),
            );
            pending = {
              connectionId,
              request: request ? toAuthorizationRequest(request) : null,
              total,
            };
          } catch (error) {
            if ((error as SwitchboardError).code === 'SWB_ERR_UNAUTHORIZED') {
              this.refused(connectionId, (error as Error).message);
            }
            return; // Down: the overview says so; try again next round.
          }
          if (backoff) {
            this.backoffs.delete(connectionId);
            this.options.onRefusal?.(connectionId, null);
          }
          if (this.last.get(connectionId) === key(pending)) return;
          this.seen(pending);
          this.options.onChange(pending);
        }),
      );
    } finally {
      this.running = false;
    }
  }

  private refused(connectionId: string, message: string): void {
    let backoff = this.backoffs.get(connectionId);
    if (!backoff) {
      backoff = new RefusalBackoff(this.options.refusalBackoff);
      this.backoffs.set(connectionId, backoff);
    }
    const state = backoff.refused();
    this.options.onRefusal?.(connectionId, {
      backoff: state,
      problem: `The broker refused this connection's signed commands: ${message}`,
    });
  }
}

// The count is part of the key: a second request behind the same oldest one is a change.
const key = (pending: PendingRequest): string =>
  `${pending.request?.requestId ?? ''}|${pending.total}`;
