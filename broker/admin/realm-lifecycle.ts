/**
 * The realm lifecycle (`spec/protocol-admin.md` §9.4 and its Switchboard note): disposal of a
 * realm — config, scoped tokens, runtime registry, connected sockets, stored copies, durable
 * subscriptions, DLQ entries, pending authorization requests, MQTT clients and MQTT state
 * (sessions, retained messages, wills) — for `remove_realm` and for
 * expired ephemeral realms.
 *
 * Expiry: one timer armed for the earliest `expires_at` (re-armed on every auth change), so a
 * realm is disposed of within a few ms of its expiry; a 60 s sweep as a safety net; a sweep at
 * start. Timers are bounded by MAX_TIMER_DELAY_MS and never keep the process alive.
 */
import { MAX_TIMER_DELAY_MS } from '../../shared/duration';
import type { AuthState } from '../auth/auth-state';
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { MessageStore } from '../storage/message-store';
import type { BrokerSocket } from '../transport/socket-types';
import { hasOwn } from './command-types';
import { disposeRealmConfig, isEphemeral } from './realm-commands';

/** Safety-net sweep period (§9.4): 60 s. */
export const SWEEP_INTERVAL_MS = 60_000;

export interface LifecycleDeps {
  readonly auth: AuthState;
  readonly realms: RealmDirectory;
  readonly store: MessageStore;
  readonly logger: Logger;
  /** Every connected socket of the main namespace on this node. */
  sockets(): Iterable<BrokerSocket>;
  /** Drops a realm's pending authorization requests; returns how many (when the flow exists). */
  purgeRequests?(realm: string): number;
  /** Called once a disposed realm's stored copies are deleted (queue accounting). */
  realmPurged?(realm: string): void;
  /** Closes the realm's MQTT clients (no wills) and deletes its MQTT state (docs/mqtt.md). */
  purgeMqtt?(realm: string): Promise<void>;
  /**
   * Drops the realm's extension state in memory (E2EE keys, principal pins;
   * `spec/protocol-extensions.md` §10); the store deletes its rows in `purgeRealm`.
   */
  purgeExtensions?(realm: string): void;
}

/** What the runtime part of a disposal did. */
export interface RuntimeDisposal {
  disconnected_sockets: number;
}

export class RealmLifecycle {
  private timer: NodeJS.Timeout | null = null;
  private interval: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Realms whose disposal failed: left to the 60 s sweep, so the timer cannot spin on them. */
  private readonly failed = new Set<string>();

  constructor(private readonly deps: LifecycleDeps) {}

  /** Sweeps once, arms the expiry timer, starts the safety-net sweep. */
  start(): void {
    if (this.interval) return;
    this.unsubscribe = this.deps.auth.onChange(() => this.arm());
    this.interval = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.interval.unref();
    this.sweep();
    this.arm();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.interval) clearInterval(this.interval);
    this.timer = null;
    this.interval = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Disposes of every expired ephemeral realm; returns the names disposed of. */
  sweep(now: number = Date.now()): string[] {
    const expired: string[] = [];
    for (const [name, config] of Object.entries(this.deps.auth.config.realms)) {
      if (
        isEphemeral(config) &&
        typeof config.expires_at === 'number' &&
        config.expires_at <= now
      ) {
        expired.push(name);
      }
    }
    const disposed: string[] = [];
    for (const realm of expired) {
      try {
        const bound = this.socketsOf(realm);
        const { removed_tokens } = this.deps.auth.update((draft) => {
          if (!hasOwn(draft.realms, realm)) return { removed_tokens: 0 };
          return disposeRealmConfig(draft, realm);
        }, 'sweep');
        const { disconnected_sockets } = this.disposeRuntime(realm, bound);
        this.failed.delete(realm);
        disposed.push(realm);
        this.deps.logger.info(
          { realm, removed_tokens, disconnected_sockets, reason: 'expired' },
          'ephemeral realm disposed',
        );
      } catch (err) {
        this.failed.add(realm);
        this.deps.logger.error({ err, realm }, 'ephemeral realm disposal failed');
      }
    }
    return disposed;
  }

  /**
   * The runtime part of a disposal (§9.4 steps 3–5 and the note's pending requests): sockets
   * disconnected, registry dropped, stored copies / DLQ / durable subscriptions purged
   * (best effort, failures logged). `bound` is the realm's sockets as they were before the
   * config commit (a session watcher may already have ended some of them on that commit); they
   * are all counted in `disconnected_sockets`.
   */
  disposeRuntime(realm: string, bound: BrokerSocket[] = this.socketsOf(realm)): RuntimeDisposal {
    const sockets = new Set([...bound, ...this.socketsOf(realm)]);
    for (const socket of sockets) socket.disconnect(true);
    const disconnected = sockets.size;
    this.deps.realms.delete(realm);
    this.deps.purgeRequests?.(realm);
    this.deps.purgeExtensions?.(realm);
    this.deps.purgeMqtt?.(realm).catch((err: unknown) => {
      this.deps.logger.error({ err, realm }, 'realm MQTT state not purged');
    });
    this.deps.store.purgeRealm(realm).then(
      (purged) => {
        this.deps.realmPurged?.(realm);
        if (purged > 0) this.deps.logger.info({ realm, purged }, 'realm messages purged');
      },
      (err: unknown) => this.deps.logger.error({ err, realm }, 'realm messages not purged'),
    );
    return { disconnected_sockets: disconnected };
  }

  /** The connected sockets bound to `realm` (a snapshot). */
  socketsOf(realm: string): BrokerSocket[] {
    return [...this.deps.sockets()].filter((socket) => socket.data.realm === realm);
  }

  /** Arms the single timer for the earliest expiry. */
  private arm(): void {
    if (!this.interval) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let earliest = Infinity;
    for (const [name, config] of Object.entries(this.deps.auth.config.realms)) {
      if (this.failed.has(name)) continue;
      if (isEphemeral(config) && typeof config.expires_at === 'number') {
        earliest = Math.min(earliest, config.expires_at);
      }
    }
    if (earliest === Infinity) return;
    const delay = Math.min(Math.max(earliest - Date.now(), 0), MAX_TIMER_DELAY_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.sweep();
      this.arm();
    }, delay);
    this.timer.unref();
  }
}
