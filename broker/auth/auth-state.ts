/**
 * The live `auth` configuration: one committed, frozen `AuthConfig` at a time, replaced whole
 * by `update` (management commands, approvals, bootstrap) or `replace` (settings reload, auth
 * store import), with listeners told of every commit.
 *
 * Why one object replaced whole: a failing command must change nothing (§8.1 "a failing
 * command changes nothing"), and persistence (settings file, SQLite auth store, cluster) can
 * diff the previous and next configs. Tokens are indexed by SHA-256 hex of the raw token so
 * look-ups compare digests, never raw strings (§4.3 note, §18 item 2).
 *
 * Source: `spec/protocol-admin.md` §8.1, §12.3–§12.4, §14.
 */
import { createHash } from 'node:crypto';
import { SwitchboardError } from '../../shared/error-catalogue';
import {
  describeAuthIssues,
  parseAuthConfig,
  type AuthConfig,
  type RealmConfig,
  type TokenEntry,
} from './auth-schema';

/** Who made a change; persistence uses it to avoid writing back what it just read. */
export type AuthChangeOrigin =
  | 'command'
  | 'approval'
  | 'bootstrap'
  | 'file'
  | 'store'
  | 'sweep'
  /** Adopted from the cluster's settings document (never published back). */
  | 'cluster';

export type AuthChangeListener = (
  next: Readonly<AuthConfig>,
  prev: Readonly<AuthConfig>,
  origin: AuthChangeOrigin,
) => void;

/** SHA-256 hex of a token: the public `token_hash` (§8.4) and the look-up key (§4.3). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class AuthState {
  private current: Readonly<AuthConfig>;
  private byHash = new Map<string, TokenEntry>();
  private readonly listeners = new Set<AuthChangeListener>();

  /** @throws SwitchboardError `SWB_ERR_VALIDATION` when `initial` is not a valid auth block. */
  constructor(initial: unknown = {}) {
    this.current = this.validate(initial);
    this.index();
  }

  /** The committed configuration (deep-frozen; never mutate). */
  get config(): Readonly<AuthConfig> {
    return this.current;
  }

  /** Whether auth is globally enabled (§2.1). */
  get enabled(): boolean {
    return this.current.enabled;
  }

  /** A realm's config, or undefined; own properties only (no prototype look-ups). */
  realm(name: string): Readonly<RealmConfig> | undefined {
    return Object.prototype.hasOwnProperty.call(this.current.realms, name)
      ? this.current.realms[name]
      : undefined;
  }

  /** The static token whose SHA-256 hex is `hash`, or undefined (first configured wins). */
  tokenByHash(hash: string): Readonly<TokenEntry> | undefined {
    return this.byHash.get(hash);
  }

  /** Global admin tokens: realm `*` and role `admin` (§3.1) — the only proof secrets (§6.5). */
  adminTokens(): readonly Readonly<TokenEntry>[] {
    return this.current.tokens.filter((t) => t.realm === '*' && t.role === 'admin');
  }

  /**
   * Applies `mutate` to a deep copy, validates the result and commits it; listeners run after
   * the commit. If `mutate` throws or the result is invalid, nothing changes and the error
   * propagates. Returns what `mutate` returned.
   * @throws SwitchboardError `SWB_ERR_VALIDATION` when the mutated config is invalid.
   */
  update<R>(mutate: (draft: AuthConfig) => R, origin: AuthChangeOrigin = 'command'): R {
    const draft = structuredClone(this.current) as AuthConfig;
    draft.realms = Object.assign(Object.create(null) as AuthConfig['realms'], draft.realms);
    const result = mutate(draft);
    this.commit(this.validate(draft), origin);
    return result;
  }

  /** Replaces the whole config (settings reload, store import). @throws like `update`. */
  replace(next: unknown, origin: AuthChangeOrigin): void {
    this.commit(this.validate(next), origin);
  }

  /** Registers a listener; returns its removal. */
  onChange(listener: AuthChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private validate(input: unknown): Readonly<AuthConfig> {
    const result = parseAuthConfig(input);
    if (!result.success) {
      const detail = describeAuthIssues(result.error.issues);
      throw new SwitchboardError('SWB_ERR_VALIDATION', `Invalid auth settings: ${detail}`);
    }
    return deepFreeze(result.data);
  }

  private commit(next: Readonly<AuthConfig>, origin: AuthChangeOrigin): void {
    const prev = this.current;
    this.current = next;
    this.index();
    for (const listener of this.listeners) listener(next, prev, origin);
  }

  private index(): void {
    const byHash = new Map<string, TokenEntry>();
    for (const entry of this.current.tokens) {
      const hash = tokenHash(entry.token);
      if (!byHash.has(hash)) byHash.set(hash, entry);
    }
    this.byHash = byHash;
  }
}
