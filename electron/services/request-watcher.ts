/**
 * Watches each connection's oldest pending authorization request and how many are pending
 * (`list_requests` of one entry, else `AUTHORIZATION_NEXT`, every `intervalMs`) and reports
 * changes, so a new request appears in the console without a reload.
 * The protocol pushes nothing to managers (§7), hence the poll.
 */
import type { PendingRequest } from '../../shared/console-api';
import type { ManagerPool } from './manager-pool';
import { toAuthorizationRequest } from './manager-pool';
import { oldestPending } from './pending-requests';

export interface RequestWatcherOptions {
  pool: ManagerPool;
  /** Connections to watch, asked before every round. */
  connectionIds: () => string[];
  onChange: (pending: PendingRequest) => void;
  /** Period in ms. Default 1000. */
  intervalMs?: number;
}

export class RequestWatcher {
  private readonly last = new Map<string, string>();
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
          let pending: PendingRequest;
          try {
            const { request, total } = await oldestPending(this.options.pool.get(connectionId));
            pending = {
              connectionId,
              request: request ? toAuthorizationRequest(request) : null,
              total,
            };
          } catch {
            return; // Down or refused: the overview says so; try again next round.
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
}

// The count is part of the key: a second request behind the same oldest one is a change.
const key = (pending: PendingRequest): string =>
  `${pending.request?.requestId ?? ''}|${pending.total}`;
