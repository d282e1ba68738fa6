/**
 * Pure view model of the Overview page, derived from the latest `Overview` sample and the local
 * broker status (kept apart from the component so it is testable without a DOM).
 */
import type { LocalBrokerState, LocalBrokerStatus, Overview } from '../../../shared/console-api';
import type { Stats } from '../../../shared/http-api';
import type { BadgeTone } from '../components/status-badge';

export interface OnlineTotal {
  online: number;
  total: number;
}

export interface OverviewModel {
  state: LocalBrokerState | 'unknown';
  tone: BadgeTone;
  port: number | null;
  url: string | null;
  dataDir: string | null;
  uptimeSeconds: number | null;
  producers: OnlineTotal | null;
  consumers: OnlineTotal | null;
  produced: number | null;
  delivered: number | null;
  producedRate: number | null;
  deliveredRate: number | null;
  connections: number | null;
  restarts: number;
  /** Why the broker is not healthy (supervisor error, else scrape error), or null. */
  problem: string | null;
  sampledAt: number | null;
}

const TONES: Record<LocalBrokerState, BadgeTone> = {
  running: 'ok',
  starting: 'busy',
  restarting: 'busy',
  stopped: 'idle',
  failed: 'bad',
};

/** Sums producer and consumer registrations over every realm. */
export function sumRegistrations(stats: Stats): { producers: OnlineTotal; consumers: OnlineTotal } {
  const producers = { online: 0, total: 0 };
  const consumers = { online: 0, total: 0 };
  for (const realm of Object.values(stats.realms)) {
    producers.online += realm.producers.online;
    producers.total += realm.producers.total;
    consumers.online += realm.consumers.online;
    consumers.total += realm.consumers.total;
  }
  return { producers, consumers };
}

export function buildOverviewModel(
  overview: Overview | undefined,
  local: LocalBrokerStatus | null,
): OverviewModel {
  const status = local ?? overview?.local ?? null;
  const state = status?.state ?? 'unknown';
  const live = overview?.reachable ? overview : null;
  const registrations = live?.stats ? sumRegistrations(live.stats) : null;
  const scrapeProblem =
    overview && !overview.reachable && state === 'running' ? overview.error?.message : null;
  return {
    state,
    tone: state === 'unknown' ? 'idle' : TONES[state],
    port: status?.port ?? null,
    url: overview?.url ?? null,
    dataDir: status?.dataDir ?? null,
    uptimeSeconds: live?.health?.uptime_seconds ?? null,
    producers: registrations?.producers ?? null,
    consumers: registrations?.consumers ?? null,
    produced: live?.counters?.produced ?? null,
    delivered: live?.counters?.delivered ?? null,
    producedRate: live?.rates?.produced ?? null,
    deliveredRate: live?.rates?.delivered ?? null,
    connections: live?.counters?.connectionsCurrent ?? null,
    restarts: status?.restarts ?? 0,
    problem: (state !== 'running' ? status?.lastError : null) ?? scrapeProblem ?? null,
    sampledAt: overview?.sampledAt ?? null,
  };
}
