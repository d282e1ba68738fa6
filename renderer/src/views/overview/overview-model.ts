/**
 * Pure view model of the Overview page, derived from the latest `Overview` sample and the local
 * broker status (kept apart from the component so it is testable without a DOM).
 */
import type { LocalBrokerState, LocalBrokerStatus, Overview } from '../../../../shared/console-api';
import type { Stats } from '../../../../shared/http-api';
import type { BadgeTone } from '../../components/status-badge';
import { formatBytes } from '../../format';

export interface OnlineTotal {
  online: number;
  total: number;
}

/** Local broker: its supervisor state; remote: reachability; `stale`: the console host is gone. */
export type OverviewState =
  LocalBrokerState | 'online' | 'refused' | 'unreachable' | 'unknown' | 'stale';

export interface OverviewModel {
  state: OverviewState;
  /** The state before the console host went away (shown as "stale (was …)"), else null. */
  staleState: OverviewState | null;
  /** The broker answers but its HTTP API is switched off (no figures to show). */
  httpApiOff: boolean;
  /** The broker answers but its figures need an admin token this connection does not have. */
  noAdminToken: boolean;
  tone: BadgeTone;
  port: number | null;
  url: string | null;
  /** The broker's node id (`/health` `node_id`, set on clustered nodes), else null. */
  nodeId: string | null;
  dataDir: string | null;
  uptimeSeconds: number | null;
  producers: OnlineTotal | null;
  consumers: OnlineTotal | null;
  produced: number | null;
  delivered: number | null;
  producedRate: number | null;
  deliveredRate: number | null;
  connections: number | null;
  /** How many of `connections` are this console's own sockets (management, live taps), else
   * null when the host does not say. */
  consoleConnections: number | null;
  restarts: number;
  /**
   * The local broker is stopped and was not failing: someone stopped it (or it was never started),
   * so there is nothing to recover — the page offers Start, not Restart, and shows no outage.
   */
  stoppedOnPurpose: boolean;
  /**
   * While the broker's store refuses new durable copies (issue 21, free-space reserve): why, in
   * words, with the free bytes and the reserve; else null.
   */
  storageRefusal: string | null;
  /** Why the broker is not healthy (supervisor error, else scrape error), or null. */
  problem: string | null;
  sampledAt: number | null;
}

const TONES: Record<OverviewState, BadgeTone> = {
  online: 'ok',
  refused: 'bad',
  unreachable: 'bad',
  unknown: 'idle',
  stale: 'idle',
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

/** Whether an overview's error says the broker's HTTP API is off (metrics-poller.ts wording). */
export function isHttpApiOff(message: string | null | undefined): boolean {
  return !!message && message.includes('HTTP API is switched off');
}

/** Whether an overview's error says the broker refused the connection's admin token (HTTP 401). */
export function tokenRefused(message: string | null | undefined): boolean {
  return !!message && message.includes('refused the admin token');
}

/** Whether an overview's error says `/api/*` needs an admin token this connection lacks. */
export function needsAdminToken(message: string | null | undefined): boolean {
  return !!message && message.includes('needs an admin token');
}

/** Re-exported: the helper moved to format.ts (the payload viewer shows sizes too). */
export { formatBytes };

/** The Overview's sentence for a store that refuses new durable copies, or null. */
export function storageRefusal(storage: Stats['storage']): string | null {
  if (!storage?.refusing_writes) return null;
  const space = `${formatBytes(storage.free_bytes)} free, reserve ${formatBytes(storage.reserve_bytes)}`;
  return storage.reason === 'store_full'
    ? `The message store ran out of space (${space}): new durable copies are refused until space is freed; ACKs still commit.`
    : `Free space on the store's disk is below its reserve (${space}): new durable copies are refused; ACKs still commit.`;
}

export interface OverviewModelOptions {
  /** The console host is unreachable: nothing shown is current. Default false. */
  stale?: boolean;
}

export function buildOverviewModel(
  overview: Overview | undefined,
  local: LocalBrokerStatus | null,
  { stale = false }: OverviewModelOptions = {},
): OverviewModel {
  // A remote connection has no supervisor: its state is whether its HTTP API answers.
  const isLocal = !overview || overview.local !== null;
  const status = isLocal ? (local ?? overview?.local ?? null) : null;
  const httpApiOff = !!overview && !overview.reachable && isHttpApiOff(overview.error?.message);
  const noAdminToken =
    !!overview && !overview.reachable && needsAdminToken(overview.error?.message);
  const limited = httpApiOff || noAdminToken;
  const liveState: OverviewState = isLocal
    ? (status?.state ?? 'unknown')
    : !overview
      ? 'unknown'
      : overview.reachable || limited
        ? 'online'
        : tokenRefused(overview.error?.message)
          ? 'refused'
          : 'unreachable';
  const state: OverviewState = stale ? 'stale' : liveState;
  const live = overview?.reachable ? overview : null;
  const registrations = live?.stats ? sumRegistrations(live.stats) : null;
  const scrapeProblem =
    overview && !overview.reachable && !limited && (liveState === 'running' || !isLocal)
      ? overview.error?.message
      : null;
  return {
    state,
    staleState: stale ? liveState : null,
    httpApiOff,
    noAdminToken,
    tone: TONES[state],
    port: status?.port ?? null,
    url: overview?.url ?? null,
    nodeId: live?.health?.node_id ?? live?.stats?.cluster?.node_id ?? null,
    dataDir: status?.dataDir ?? null,
    uptimeSeconds: live?.health?.uptime_seconds ?? null,
    producers: registrations?.producers ?? null,
    consumers: registrations?.consumers ?? null,
    produced: live?.counters?.produced ?? null,
    delivered: live?.counters?.delivered ?? null,
    producedRate: live?.rates?.produced ?? null,
    deliveredRate: live?.rates?.delivered ?? null,
    connections: live?.counters?.connectionsCurrent ?? null,
    consoleConnections: live?.counters ? (live.consoleConnections ?? null) : null,
    restarts: status?.restarts ?? 0,
    stoppedOnPurpose: isLocal && liveState === 'stopped',
    storageRefusal: storageRefusal(live?.stats?.storage),
    // A deliberate stop is not a problem, whatever an earlier crash left in `lastError`.
    problem:
      isLocal && liveState === 'stopped'
        ? null
        : ((liveState !== 'running' ? status?.lastError : null) ?? scrapeProblem ?? null),
    sampledAt: overview?.sampledAt ?? null,
  };
}

/**
 * The line under the Connections figure. The broker counts this console's management
 * connection and live taps like any client; an operator reading "1 connection" on an idle broker
 * took it for a client of theirs (newcomer trial, issue 27), so the line says how many are the
 * console's. The figure stays the broker's own (it matches `/api/metrics` and other tools); the
 * console's share is capped by it, since the two are read at slightly different times.
 */
export function connectionsDetail(connections: number | null, own: number | null): string {
  const mine = connections === null || own === null ? 0 : Math.min(own, connections);
  return mine === 0 ? 'open now' : `open now · incl. ${mine} from this console`;
}
