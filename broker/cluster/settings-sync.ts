/**
 * The settings document a cluster shares (`spec/protocol-admin.md` §12.4, §15;
 * `spec/protocol-core.md` §17 last bullet; docs/cluster.md "Admin state in a cluster").
 *
 * Redis keys (under the cluster prefix):
 * - `<prefix>:settings` — the document as JSON: a node's settings minus its node-local keys
 *   (`settings-document.ts`), with the whole `auth` block, raw secrets included (Redis must be
 *   private and authenticated);
 * - `<prefix>:settings:rev` — its revision, an integer that only grows;
 * - `<prefix>:settings:changed` — channel; each write publishes `{node_id, rev}`.
 *
 * Behaviour:
 * - Publish: every persisted change of this node (management commands, approvals, the admin
 *   token bootstrap, realm sweeps, a reloaded settings file) whose shareable document differs
 *   from the last one published or adopted is written with the next revision — document,
 *   revision and notification in one Lua script.
 *   Changes of one tick are coalesced.
 * - Adopt: a notification (or a reconnection) with a revision above ours makes the node read
 *   the document and adopt it (`SharedSettingsPort.adopt`: validated like a settings file —
 *   an invalid document is logged and refused, the node keeps its settings). Adopting is
 *   origin `cluster` and is never published back. Older revisions are ignored.
 * - Start: a node adopts the cluster's document; an empty cluster is seeded by the first node
 *   (`SET`-if-missing in the script, so two nodes starting together do not both seed).
 * - Concurrent changes: a write names the revision it started from and is refused when
 *   another node wrote meanwhile; the node then merges its change into the newer document
 *   (`settings-merge.ts`: both changes kept; the same value changed on both sides → its own),
 *   adopts the result and writes it again. Every node ends with the same document.
 * - Redis outages: nodes keep their last-known settings and keep serving. A change made
 *   during the outage is merged and published when Redis is back; otherwise the node re-reads
 *   the revision and catches up. A Redis that lost its data is re-seeded.
 */
import { stableJson } from '../../shared/admin-signature';
import type { AuthState } from '../auth/auth-state';
import type { Logger } from '../logging/logger';
import type { RedisLinks } from './redis-links';
import type { SharedSettingsPort } from './settings-document';
import { mergeDocuments } from './settings-merge';

type Json = Record<string, unknown>;

/** Longest wait (ms) of `at(rev)` for a revision to be adopted. */
export const SETTINGS_WAIT_MS = 5_000;

/**
 * KEYS: document, revision. ARGV: text, our revision, node id, channel, mode. Modes: `seed`
 * (only if there is no document: -1 otherwise), `write` (only if the stored revision is ours:
 * -2 otherwise), `force`. Returns the new revision, `max(stored, ours) + 1`.
 */
const PUBLISH_SCRIPT = `
if ARGV[5] == 'seed' and redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local cur = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if ARGV[5] == 'write' and cur ~= tonumber(ARGV[2]) then return -2 end
local rev = math.max(cur, tonumber(ARGV[2])) + 1
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], rev)
redis.call('PUBLISH', ARGV[4], cjson.encode({node_id = ARGV[3], rev = rev}))
return rev
`;

type Mode = 'seed' | 'write' | 'force';

/** Conflicting writes in a row before this node's document is forced (last writer wins). */
const MAX_CONFLICTS = 5;

export interface SettingsSyncDeps {
  nodeId: string;
  prefix: string;
  links: RedisLinks;
  port: SharedSettingsPort;
  auth: AuthState;
  logger: Logger;
}

export class SettingsSync {
  private readonly docKey: string;
  private readonly revKey: string;
  private readonly channel: string;
  /** Revision of the document this node last published or adopted (0: none yet). */
  private rev = 0;
  /** This node's document as of the last publish/adoption: the base of a merge. */
  private lastDoc: Json | null = null;
  private lastText: string | null = null;
  /** A publish failed (Redis down); logged once until one succeeds. */
  private failing = false;
  /** Whether the first catch-up with the cluster happened. */
  private synced = false;
  private refusedRev = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private scheduled: Promise<void> | null = null;
  private waiters: { rev: number; done: () => void }[] = [];
  private stopAuth: (() => void) | null = null;
  private closed = false;

  constructor(private readonly deps: SettingsSyncDeps) {
    this.docKey = `${deps.prefix}:settings`;
    this.revKey = `${deps.prefix}:settings:rev`;
    this.channel = `${deps.prefix}:settings:changed`;
  }

  /** The revision in force on this node. */
  get revision(): number {
    return this.rev;
  }

  /** Catches up with the cluster (adopt or seed), then follows it. Never rejects. */
  async start(): Promise<void> {
    this.deps.links.listen(this.channel, (text) => this.notified(text));
    // Either link coming back may have missed a notification: re-read the revision.
    for (const link of [this.deps.links.command, this.deps.links.subscriber]) {
      link.on('ready', () => {
        void this.enqueue(() => this.catchUp());
      });
    }
    await this.enqueue(() => this.catchUp());
    this.stopAuth = this.deps.auth.onChange((_next, _prev, origin) => {
      if (origin !== 'cluster') this.schedule();
    });
  }

  /** Publishes what is pending; resolves with the revision then in force. */
  async flush(): Promise<number> {
    await this.scheduled;
    await this.chain;
    return this.rev;
  }

  /** Resolves once revision `rev` (or a later one) is in force here, or after 5 s. */
  at(rev: number): Promise<void> {
    if (rev <= this.rev) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { rev, done: () => resolve() };
      this.waiters.push(waiter);
      setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      }, SETTINGS_WAIT_MS).unref();
    });
  }

  /**
   * Holds every publication and adoption queued after this call until `until` settles (a
   * `rename_realm` holds it until its notice is out: cluster/realm-renames.ts).
   */
  hold(until: Promise<unknown>): void {
    void this.enqueue(() =>
      until.then(
        () => undefined,
        () => undefined,
      ),
    );
  }

  close(): void {
    this.closed = true;
    this.stopAuth?.();
    for (const w of this.waiters.splice(0)) w.done();
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = new Promise((resolve) => {
      setImmediate(() => {
        this.scheduled = null;
        void this.enqueue(() => this.publishIfChanged()).then(() => resolve());
      });
    });
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const run = () =>
      this.closed
        ? Promise.resolve()
        : work().catch((err: unknown) => {
            this.deps.logger.error({ err }, 'cluster settings sync failed');
          });
    const next = this.chain.then(run, run);
    this.chain = next;
    return next;
  }

  private setRev(rev: number): void {
    this.rev = rev;
    const ready = this.waiters.filter((w) => w.rev <= rev);
    this.waiters = this.waiters.filter((w) => w.rev > rev);
    for (const w of ready) w.done();
  }

  /** Whether this node has a change not yet in the cluster's document. */
  private changedLocally(doc: Json): boolean {
    return stableJson(doc) !== this.lastText;
  }

  private async publishIfChanged(): Promise<void> {
    // Before the first catch-up, the cluster's document wins over local changes.
    if (!this.synced) return;
    const doc = this.deps.port.document();
    if (this.changedLocally(doc)) await this.publish(doc, 'write');
  }

  /** Writes `doc`; on a conflict, merges with the newer document and writes again. */
  private async publish(doc: Json, mode: Mode, conflicts = 0): Promise<void> {
    let rev: number;
    try {
      rev = (await this.deps.links.command.eval(
        PUBLISH_SCRIPT,
        2,
        this.docKey,
        this.revKey,
        JSON.stringify(doc),
        String(this.rev),
        this.deps.nodeId,
        this.channel,
        mode,
      )) as number;
    } catch (err) {
      // Kept locally; merged and published on reconnection (catchUp).
      if (!this.failing) {
        this.failing = true;
        this.deps.logger.warn(
          { err: (err as Error).message },
          'cluster settings not published (redis unavailable); kept locally until it is back',
        );
      }
      return;
    }
    this.failing = false;
    if (rev === -1) return this.catchUp();
    if (rev === -2) {
      const [text, revText] = await this.deps.links.command.mget(this.docKey, this.revKey);
      if (!text) return this.publish(doc, 'seed', conflicts + 1);
      const stored = Number(revText ?? 0) || 0;
      if (conflicts >= MAX_CONFLICTS) {
        this.setRev(stored);
        return this.publish(doc, 'force', conflicts + 1);
      }
      return this.reconcile(text, stored, conflicts + 1);
    }
    this.lastDoc = doc;
    this.lastText = stableJson(doc);
    this.setRev(rev);
    this.deps.logger.info({ rev, mode }, 'cluster settings published');
  }

  /**
   * Brings this node to the stored document `text` (revision `rev`, not ours): adopts it, or,
   * with a local change not yet published, adopts the merge of both and publishes that.
   */
  private async reconcile(text: string, rev: number, conflicts = 0): Promise<void> {
    const mine = this.deps.port.document();
    if (!this.changedLocally(mine)) {
      this.adopt(text, rev);
      return;
    }
    if (this.lastDoc === null) {
      // Never in step with the cluster (its document was refused): ours replaces it.
      if (this.adopt(text, rev)) return;
      this.setRev(rev);
      return this.publish(mine, 'force', conflicts);
    }
    const theirs = parseDocument(text);
    if (theirs === null) {
      this.refused(rev, 'not a JSON object');
      this.setRev(rev);
      return this.publish(mine, 'force', conflicts);
    }
    const merged = mergeDocuments(this.lastDoc, mine, theirs) as Json;
    try {
      this.deps.port.adopt(merged);
    } catch (err) {
      // The merge is invalid: this node's document wins (last writer wins).
      this.refused(rev, (err as Error).message);
    }
    // The stored document is the new base; what this node now holds is written over it.
    this.lastDoc = theirs;
    this.lastText = stableJson(theirs);
    this.setRev(rev);
    this.deps.logger.info({ rev }, 'cluster settings merged with a concurrent change');
    await this.publish(this.deps.port.document(), 'write', conflicts);
  }

  /** Start and reconnection: adopt a newer document, seed an empty cluster, or push ours. */
  private async catchUp(): Promise<void> {
    if (!this.deps.links.up) return;
    const [found, revText] = await this.deps.links.command.mget(this.docKey, this.revKey);
    const stored = Number(revText ?? 0) || 0;
    const first = !this.synced;
    this.synced = true;
    if (!found) {
      // Empty cluster, or a Redis that lost its data: seed it (unless someone just did).
      return this.publish(this.deps.port.document(), 'seed');
    }
    if (first) {
      this.adopt(found, stored);
      return;
    }
    // (`reconcile` adopts, or merges in a change made while Redis was down.)
    if (stored !== this.rev) return this.reconcile(found, stored);
    const mine = this.deps.port.document();
    if (this.changedLocally(mine)) await this.publish(mine, 'write');
  }

  private notified(text: string): void {
    let rev: unknown;
    let from: unknown;
    try {
      ({ rev, node_id: from } = JSON.parse(text) as { rev?: unknown; node_id?: unknown });
    } catch {
      return;
    }
    if (from === this.deps.nodeId || typeof rev !== 'number' || rev <= this.rev) return;
    void this.enqueue(async () => {
      if (rev <= this.rev || !this.deps.links.up) return;
      const [doc, revText] = await this.deps.links.command.mget(this.docKey, this.revKey);
      const stored = Number(revText ?? 0) || 0;
      if (doc && stored > this.rev) await this.reconcile(doc, stored);
    });
  }

  private refused(rev: number, why: string): void {
    if (rev === this.refusedRev) return;
    this.refusedRev = rev;
    this.deps.logger.error(
      { rev, err: why },
      'cluster settings document refused; this node keeps its settings',
    );
  }

  /** Adopts the stored document; false (logged) when it is refused. */
  private adopt(text: string, rev: number): boolean {
    const doc = parseDocument(text);
    try {
      if (doc === null) throw new Error('not a JSON object');
      this.deps.port.adopt(doc);
    } catch (err) {
      this.refused(rev, (err as Error).message);
      return false;
    }
    this.lastDoc = this.deps.port.document();
    this.lastText = stableJson(this.lastDoc);
    this.setRev(rev);
    this.deps.logger.info({ rev }, 'cluster settings adopted');
    return true;
  }
}

function parseDocument(text: string): Json | null {
  try {
    const doc: unknown = JSON.parse(text);
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Json) : null;
  } catch {
    return null;
  }
}
