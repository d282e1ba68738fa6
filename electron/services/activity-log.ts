/**
 * The console's audit log (issue 12, Activity): one JSON line per command this console sent to a
 * broker, appended to `<dataDir>/console-activity.jsonl` (mode 0600), bounded, never holding a
 * secret. `AuditedManagerPool` wraps the ManagerPool so every signed call goes through it.
 *
 * Redaction is by schema, not by looking at values: each wire action has an allow-list of its
 * parameters (`AUDIT_PARAMS`, audit-rules.ts); a parameter marked secret is recorded only as
 * `"<set>"` or `"<cleared>"`, and a parameter the list does not know is dropped. Each entry names
 * its connection (by its name at the time), and says what a command did when its reply tells
 * (`auditResult`: dead letters replayed or discarded, copies a test publish stored); a DLQ
 * replay also keeps its trail (`auditTrail`: each DLQ id → new id → realm, consumer, event).
 *
 * Each entry says who started it (`origin`): the operator, or the console's own background work
 * (clients taken with `pool.get(id, 'console')`). A console clean-up that deletes something
 * already gone (`NOT_FOUND` on one of `IDEMPOTENT_DELETES`) reached its goal: it is recorded as
 * ok with the note `already gone`, not as a failure.
 */
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  ActivityEntrySchema,
  type ActivityEntry,
  type ActivityOrigin,
} from '../../shared/console-api-activity';
import { SignedAction } from '../../shared/admin-signature';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { ConnectionManager } from './connection-manager';
import type { ManagerClient } from './manager-client';
import { ManagerPool } from './manager-pool';
import {
  auditParams,
  auditResult,
  auditTarget,
  IDEMPOTENT_DELETES,
  UNAUDITED_ACTIONS,
} from './audit-rules';
import { auditTrail } from './audit-trail';

export {
  AUDIT_PARAMS,
  auditParams,
  auditResult,
  CONSOLE_MQTT_PUBLISH_ACTION,
  CONSOLE_PUBLISH_ACTION,
  IDEMPOTENT_DELETES,
  MAX_AUDIT_IDS,
  UNAUDITED_ACTIONS,
} from './audit-rules';

/** File name of the audit log inside the console's data directory. */
export const ACTIVITY_FILE_NAME = 'console-activity.jsonl';

function defaultActor(): string {
  try {
    return `console (${os.userInfo().username})`;
  } catch {
    return 'console';
  }
}

export interface ActivityFilter {
  connectionId?: string;
  limit?: number;
  origins?: readonly ActivityOrigin[];
  actions?: readonly string[];
  outcome?: 'ok' | 'failed';
}

export interface ActivityLogOptions {
  /** Directory of the log file; null keeps entries in memory only (tests). */
  dataDir: string | null;
  /** Entries kept; the file is compacted to this many once it holds 1.5×. Default 5000. */
  maxEntries?: number;
  actor?: string;
  onEntry?: (entry: ActivityEntry) => void;
}

export class ActivityLog {
  readonly file: string | null;
  readonly actor: string;
  private readonly maxEntries: number;
  private memory: ActivityEntry[] = [];
  private lines = 0;
  private seq = 0;

  constructor(private readonly options: ActivityLogOptions) {
    this.file = options.dataDir ? path.join(options.dataDir, ACTIVITY_FILE_NAME) : null;
    this.actor = options.actor ?? defaultActor();
    this.maxEntries = options.maxEntries ?? 5_000;
    const existing = this.readAll();
    this.lines = existing.length;
    this.seq = existing.reduce((max, entry) => Math.max(max, entry.seq), 0);
  }

  /** Records one sent command (`origin` default operator). Never throws: a log that cannot be
   * written must not fail a command. */
  record(
    entry: Omit<ActivityEntry, 'seq' | 'actor' | 'origin'> & { origin?: ActivityOrigin },
  ): ActivityEntry {
    const full: ActivityEntry = {
      seq: ++this.seq,
      actor: this.actor,
      ...entry,
      origin: entry.origin ?? 'operator',
    };
    try {
      if (this.file) {
        mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
        // One write of one line with O_APPEND: concurrent appends do not interleave.
        appendFileSync(this.file, `${JSON.stringify(full)}\n`, { mode: 0o600 });
        this.lines += 1;
        if (this.lines > this.maxEntries * 1.5) this.compact();
      } else {
        this.memory.push(full);
        if (this.memory.length > this.maxEntries) this.memory = this.memory.slice(-this.maxEntries);
      }
    } catch {
      // Disk full or read-only: the command itself succeeded or failed on its own.
    }
    this.options.onEntry?.(full);
    return full;
  }

  /**
   * Newest first, optionally of one connection, some origins (default: all), some actions and
   * one outcome; `limit` (default 200) counts after the filters.
   */
  list(filter: ActivityFilter = {}): ActivityEntry[] {
    return this.query(filter).entries;
  }

  /** `list`, plus what the whole log holds to filter by (connections with their latest name,
   * actions), whatever the filter. One read of the file. */
  query(filter: ActivityFilter = {}): {
    entries: ActivityEntry[];
    facets: { connections: { id: string; name: string }[]; actions: string[] };
  } {
    const limit = filter.limit ?? 200;
    const all = this.readAll();
    const names = new Map<string, string>();
    const actions = new Set<string>();
    for (const entry of all) {
      names.set(
        entry.connectionId,
        entry.connectionName ?? names.get(entry.connectionId) ?? entry.connectionId,
      );
      actions.add(entry.action);
    }
    const entries = all.filter(
      (entry) =>
        (!filter.connectionId || entry.connectionId === filter.connectionId) &&
        (!filter.origins || filter.origins.includes(entry.origin)) &&
        (!filter.actions || filter.actions.includes(entry.action)) &&
        (!filter.outcome || entry.ok === (filter.outcome === 'ok')),
    );
    return {
      entries: entries.slice(-limit).reverse(),
      facets: {
        connections: [...names].map(([id, name]) => ({ id, name })),
        actions: [...actions].sort(),
      },
    };
  }

  private readAll(): ActivityEntry[] {
    if (!this.file) return [...this.memory];
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    const entries: ActivityEntry[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        // The schema fills what older entries lack (`origin` → operator).
        const parsed = ActivityEntrySchema.safeParse(JSON.parse(line));
        if (parsed.success) entries.push(parsed.data);
      } catch {
        // A torn last line after a crash: skip it.
      }
    }
    return entries;
  }

  /** Keeps the newest `maxEntries`, rewriting the file atomically (temp file + rename). */
  private compact(): void {
    if (!this.file) return;
    const kept = this.readAll().slice(-this.maxEntries);
    const temp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(temp, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(''), {
        mode: 0o600,
        flag: 'wx',
      });
      renameSync(temp, this.file);
      this.lines = kept.length;
    } catch {
      rmSync(temp, { force: true });
    }
  }
}

/**
 * A ManagerPool whose clients record every signed call (except the reads of `UNAUDITED_ACTIONS`)
 * in `activity`, with its result. Drop-in for `ManagerPool`.
 */
export class AuditedManagerPool extends ManagerPool {
  private readonly wrapped: Record<ActivityOrigin, WeakMap<ManagerClient, ManagerClient>> = {
    operator: new WeakMap(),
    console: new WeakMap(),
  };

  constructor(
    private readonly named: ConnectionManager,
    private readonly activity: ActivityLog,
    timeoutMs?: number,
  ) {
    super(named, timeoutMs);
  }

  /**
   * Runs `call` and records it as `action` on `body` for `connectionId` (with the connection's
   * name at that time, the outcome and `auditResult`'s summary of the value). For commands that
   * are not signed management calls, such as the console's test publish. Rethrows.
   */
  recorded<T>(
    connectionId: string,
    origin: ActivityOrigin,
    action: string,
    body: Record<string, unknown>,
    call: () => Promise<T>,
  ): Promise<T> {
    return this.audited(connectionId, origin, action, body, call);
  }

  private connectionName(connectionId: string): string | undefined {
    try {
      return this.named.profile(connectionId).name;
    } catch {
      return undefined;
    }
  }

  /** The client of `connectionId` whose calls are recorded with `origin` (default operator). */
  override get(connectionId: string, origin: ActivityOrigin = 'operator'): ManagerClient {
    const client = super.get(connectionId);
    const cache = this.wrapped[origin];
    let audited = cache.get(client);
    if (!audited) {
      audited = this.audit(connectionId, client, origin);
      cache.set(client, audited);
    }
    return audited;
  }

  private audit(
    connectionId: string,
    client: ManagerClient,
    origin: ActivityOrigin,
  ): ManagerClient {
    const run = <T>(action: string, body: Record<string, unknown>, call: () => Promise<T>) =>
      this.audited(connectionId, origin, action, body, call);
    return new Proxy(client, {
      get(target, property) {
        if (property === 'command') {
          return (body: { command: string } & Record<string, unknown>) =>
            run(body.command, body, () => target.command(body));
        }
        if (property === 'decide') {
          return (id: string, approved: boolean, role?: string, reason?: string) =>
            run(SignedAction.AUTHORIZATION_DECIDE, { request_id: id, approved, role, reason }, () =>
              target.decide(id, approved, role, reason),
            );
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
  }

  private async audited<T>(
    connectionId: string,
    origin: ActivityOrigin,
    action: string,
    body: Record<string, unknown>,
    call: () => Promise<T>,
  ): Promise<T> {
    if (UNAUDITED_ACTIONS.has(action)) return call();
    const started = performance.now();
    const connectionName = this.connectionName(connectionId);
    const base = {
      at: Date.now(),
      origin,
      connectionId,
      ...(connectionName ? { connectionName } : {}),
      action,
      target: auditTarget(body),
    };
    const params = auditParams(action, body);
    try {
      const value = await call();
      const result = auditResult(action, value);
      const trail = auditTrail(action, value);
      this.activity.record({
        ...base,
        params,
        ok: true,
        error: null,
        ...(result ? { result } : {}),
        ...trail,
        durationMs: elapsed(started),
      });
      return value;
    } catch (error) {
      if (
        origin === 'console' &&
        IDEMPOTENT_DELETES.has(action) &&
        error instanceof SwitchboardError &&
        error.code === 'SWB_ERR_NOT_FOUND'
      ) {
        this.activity.record({
          ...base,
          params,
          ok: true,
          error: null,
          note: 'already gone',
          durationMs: elapsed(started),
        });
        throw error;
      }
      const reason =
        error instanceof SwitchboardError ? `${error.code}: ${error.message}` : 'SWB_ERR_INTERNAL';
      this.activity.record({
        ...base,
        params,
        ok: false,
        error: reason,
        durationMs: elapsed(started),
      });
      throw error;
    }
  }
}

const elapsed = (started: number): number => Math.max(0, Math.round(performance.now() - started));
