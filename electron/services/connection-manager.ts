/**
 * ConnectionManager: the console's broker connections (the built-in "Local broker" and remote
 * profiles, see connection-profiles.ts), each with its own MetricsPoller, composed into
 * `Overview` samples, plus each connection's reachability for the connection list.
 *
 * Source: ARCHITECTURE §1 (ConnectionManager; "the console manages the local broker exactly as it
 * manages a remote one" — over the wire, here through the broker's HTTP API).
 */
import {
  LOCAL_CONNECTION_ID,
  type LocalBrokerStatus,
  type Overview,
} from '../../shared/console-api';
import type {
  ConnectionBackoff,
  ConnectionState,
  ConnectionSummary,
} from '../../shared/console-api-connections';
import { errorInfo, SwitchboardError } from '../../shared/error-catalogue';
import type { BrokerSupervisor } from './broker-supervisor';
import type { StoredProfile } from './connection-profiles';
import {
  isLimitedScrape,
  isRefusedScrape,
  MetricsPoller,
  type BrokerSample,
  type ScrapeTarget,
} from './metrics-poller';
import type { PromExposition } from './prometheus-text';
import type { BackoffState, RefusalBackoffOptions } from './refusal-backoff';
import { remoteTarget } from './remote-target';

/** Listener of every scrape of every connection, with its parsed metrics (null if unread). */
export type ConnectionSampleListener = (
  connectionId: string,
  sample: BrokerSample,
  metrics: PromExposition | null,
) => void;

/** Poller settings shared by every connection. Defaults: 1000 ms period, 2000 ms timeout. */
export interface ConnectionManagerOptions {
  intervalMs?: number;
  timeoutMs?: number;
  /** Backoff of a connection whose admin token is refused (default 2 s doubling to 60 s). */
  refusalBackoff?: Omit<RefusalBackoffOptions, 'now'>;
}

/** A connection profile as the manager needs it. Secrets stay behind `target()`. */
export interface ConnectionProfile {
  id: string;
  name: string;
  /** Where to scrape now; null while there is nothing to reach (local broker not running). */
  target: () => ScrapeTarget | null;
  /** Display URL of the broker. */
  url: () => string;
  /** The signing secret (admin token or realm manager key), or null. Never leaves the host. */
  secret?: () => string | null;
  /** The supervised local broker, for the local profile only. */
  local?: BrokerSupervisor;
  /** The stored fields of a remote profile (no secret). */
  stored?: StoredProfile;
}

interface Connection {
  profile: ConnectionProfile;
  poller: MetricsPoller;
  dispose: () => void;
  state: ConnectionState;
  problem: string | null;
  /** The poller's backoff after refusals of the HTTP bearer. */
  httpBackoff: BackoffState | null;
  /** Refusals of signed commands (request-watcher.ts), with the broker's reason. */
  commandRefusal: { backoff: BackoffState; problem: string } | null;
}

export class ConnectionManager {
  private readonly connections = new Map<string, Connection>();
  private readonly listeners = new Set<(overview: Overview) => void>();
  private readonly changeListeners = new Set<(changedId: string | null) => void>();
  private readonly sampleListeners = new Set<ConnectionSampleListener>();
  /** Stamped on every list so a page can drop one that arrives after a newer one. */
  private readonly revision = { epoch: Date.now(), seq: 0 };

  constructor(private readonly options: ConnectionManagerOptions = {}) {}

  /**
   * Adds the built-in local broker profile (`LOCAL_CONNECTION_ID`) backed by `supervisor`;
   * `adminToken` (the console's, kept in the SecretStore) is sent as the scrapes' bearer token
   * and signs its management commands.
   */
  addLocal(supervisor: BrokerSupervisor, adminToken: string | null = null): void {
    this.add({
      id: LOCAL_CONNECTION_ID,
      name: 'Local broker',
      local: supervisor,
      target: () => {
        const endpoint = supervisor.endpoint();
        return endpoint
          ? { baseUrl: httpUrl(endpoint.host, endpoint.port), bearerToken: adminToken }
          : null;
      },
      url: () => httpUrl(supervisor.endpoint()?.host ?? '127.0.0.1', supervisor.status().port),
      secret: () => adminToken,
    });
  }

  /**
   * Adds (or, for a known id, replaces) a remote profile; `secret()` reads its credential from
   * the SecretStore when needed, so it never sits in this object.
   */
  putRemote(stored: StoredProfile, secret: () => string | null): void {
    // An edit replaces the connection in place: one change event (from `add`), never a list
    // without it (a page that had it selected would fall back to the local broker).
    const previous = this.connections.get(stored.id);
    if (previous) {
      previous.poller.stop();
      previous.dispose();
      this.connections.delete(stored.id);
    }
    this.add({
      id: stored.id,
      name: stored.name,
      stored,
      target: remoteTarget(stored, secret),
      url: () => stored.url,
      secret,
    });
  }

  /** Stops polling `connectionId` and forgets it (no-op when unknown). */
  remove(connectionId: string): void {
    const connection = this.connections.get(connectionId);
    if (!connection) return;
    connection.poller.stop();
    connection.dispose();
    this.connections.delete(connectionId);
    this.changed(connectionId);
  }

  /** Adds a connection and starts polling it. Throws if the id is taken. */
  add(profile: ConnectionProfile): void {
    if (this.connections.has(profile.id))
      throw new Error(`Connection ${profile.id} already exists`);
    const poller = new MetricsPoller({
      target: profile.target,
      intervalMs: this.options.intervalMs,
      timeoutMs: this.options.timeoutMs,
      refusalBackoff: this.options.refusalBackoff,
      unavailableError: profile.local
        ? errorInfo('SWB_ERR_BROKER_NOT_RUNNING')
        : errorInfo('SWB_ERR_BROKER_UNREACHABLE'),
    });
    const disposers = [
      poller.onSample((sample, metrics) => {
        this.track(profile.id, sample);
        this.publish(this.compose(profile, sample));
        for (const listener of this.sampleListeners) listener(profile.id, sample, metrics);
      }),
      // Scrape right away when the local broker changes state, so the UI does not lag a period.
      profile.local?.onStatus((status) => {
        if (status.state === 'running') void poller.pollOnce();
      }),
    ];
    this.connections.set(profile.id, {
      profile,
      poller,
      dispose: () => disposers.forEach((dispose) => dispose?.()),
      state: 'unknown',
      problem: null,
      httpBackoff: null,
      commandRefusal: null,
    });
    this.changed(profile.id);
    poller.start();
  }

  /** Every connection as the renderer sees it (no secret), the local broker first. */
  summaries(): ConnectionSummary[] {
    const revision = { ...this.revision };
    return [...this.connections.values()].map((connection) => {
      const { profile } = connection;
      const { state, problem, backoff } = view(connection);
      const stored = profile.stored;
      return {
        id: profile.id,
        name: profile.name,
        url: profile.url(),
        builtIn: !stored,
        tls: stored?.tls ?? { rejectUnauthorized: true },
        credential: stored?.credential ?? { kind: 'admin' },
        allowInsecureBearer: stored?.allowInsecureBearer ?? false,
        hasSecret: safeHasSecret(profile),
        state,
        problem,
        backoff,
        revision,
      };
    });
  }

  /**
   * Called when a connection is added, replaced or removed (`changedId`), or goes online or
   * unreachable. Returns the unsubscribe function.
   */
  onChange(listener: (changedId: string | null) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The profile of `connectionId`. Throws `SwitchboardError('SWB_ERR_NOT_FOUND')` if unknown. */
  profile(connectionId: string): ConnectionProfile {
    const connection = this.connections.get(connectionId);
    if (!connection)
      throw new SwitchboardError('SWB_ERR_NOT_FOUND', `Unknown connection: ${connectionId}`);
    return connection.profile;
  }

  /**
   * Records that the broker refused (or, with null, accepted again) the connection's signed
   * commands, with the backoff the caller applies; the connection shows as `refused` with
   * `problem` while it lasts. Unknown ids are ignored.
   */
  reportCommandRefusal(
    connectionId: string,
    refusal: { backoff: BackoffState; problem: string } | null,
  ): void {
    const connection = this.connections.get(connectionId);
    if (!connection) return;
    if (!refusal && !connection.commandRefusal) return;
    connection.commandRefusal = refusal;
    this.changed(null);
  }

  /** Ids of all connections. */
  ids(): string[] {
    return [...this.connections.keys()];
  }

  /**
   * The latest overview of `connectionId` (scraping once if none exists yet).
   * Throws `SwitchboardError('SWB_ERR_NOT_FOUND')` for an unknown id.
   */
  async overview(connectionId: string): Promise<Overview> {
    const connection = this.connections.get(connectionId);
    if (!connection)
      throw new SwitchboardError('SWB_ERR_NOT_FOUND', `Unknown connection: ${connectionId}`);
    const sample = connection.poller.latest() ?? (await connection.poller.pollOnce());
    return this.compose(connection.profile, sample);
  }

  /** Subscribes to every new overview of every connection; returns the unsubscribe function. */
  onOverview(listener: (overview: Overview) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Subscribes to every scrape of every connection (metric history); returns the unsubscribe. */
  onSample(listener: ConnectionSampleListener): () => void {
    this.sampleListeners.add(listener);
    return () => this.sampleListeners.delete(listener);
  }

  /** Stops every poller and forgets every connection. */
  close(): void {
    for (const connection of this.connections.values()) {
      connection.poller.stop();
      connection.dispose();
    }
    this.connections.clear();
    this.listeners.clear();
    this.sampleListeners.clear();
    this.changeListeners.clear();
  }

  private track(id: string, sample: BrokerSample): void {
    const connection = this.connections.get(id);
    if (!connection) return;
    const problem = sample.reachable ? null : (sample.error?.message ?? null);
    // The broker answered but shows no figures (HTTP API off, no admin token): it is online.
    const state: ConnectionState =
      sample.reachable || isLimitedScrape(problem)
        ? 'online'
        : isRefusedScrape(problem)
          ? 'refused'
          : 'unreachable';
    const httpBackoff = connection.poller.backoffState();
    if (
      connection.state === state &&
      connection.problem === problem &&
      connection.httpBackoff?.refusals === httpBackoff?.refusals
    ) {
      return;
    }
    connection.state = state;
    connection.problem = problem;
    connection.httpBackoff = httpBackoff;
    this.changed(null);
  }

  private changed(id: string | null): void {
    this.revision.seq += 1;
    for (const listener of [...this.changeListeners]) listener(id);
  }

  private compose(profile: ConnectionProfile, sample: BrokerSample): Overview {
    const local: LocalBrokerStatus | null = profile.local ? profile.local.status() : null;
    return {
      connectionId: profile.id,
      name: profile.name,
      url: profile.url(),
      reachable: sample.reachable,
      error: sample.error,
      health: sample.health,
      stats: sample.stats,
      counters: sample.counters,
      rates: sample.rates,
      local,
      sampledAt: sample.sampledAt,
      seq: sample.seq,
    };
  }

  private publish(overview: Overview): void {
    for (const listener of this.listeners) listener(overview);
  }
}

/**
 * What a connection's summary says: the scrape's state, unless signed commands are refused
 * while the scrapes are not (a realm manager key scrapes without a bearer); and the backoff of
 * whichever is refused.
 */
function view(connection: Connection): {
  state: ConnectionState;
  problem: string | null;
  backoff: ConnectionBackoff | null;
} {
  const { state, problem, httpBackoff, commandRefusal } = connection;
  if (state === 'refused' && httpBackoff) {
    return { state, problem, backoff: { ...httpBackoff, what: 'http' } };
  }
  if (commandRefusal && state !== 'unreachable') {
    return {
      state: 'refused',
      problem: commandRefusal.problem,
      backoff: { ...commandRefusal.backoff, what: 'commands' },
    };
  }
  return { state, problem, backoff: null };
}

function safeHasSecret(profile: ConnectionProfile): boolean {
  try {
    return !!profile.secret?.();
  } catch {
    return false; // An unreadable store: no usable secret.
  }
}

function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
