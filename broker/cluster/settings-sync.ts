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
 *   from the last one published or adopted is written with a new revision,
 *   `max(stored rev, our rev) + 1`, document, revision and notification in one Lua script.
 *   Changes of one tick are coalesced.
 * - Adopt: a notification (or a reconnection) with a revision above ours makes the node read
 *   the document and adopt it (`SharedSettingsPort.adopt`: validated like a settings file —
 *   an invalid document is logged and refused, the node keeps its settings). Adopting is
 *   origin `cluster` and is never published back. Older revisions are ignored.
 * - Start: a node adopts the cluster's document; an empty cluster is seeded by the first node
 *   (`SET`-if-missing in the script, so two nodes starting together do not both seed).
 * - Concurrent changes on two nodes: the later revision wins everywhere (last writer wins; a
 *   change made on another node in the same instant can be lost).
 * - Redis outages: nodes keep their last-known settings and keep serving. A change made
 *   during the outage is published when Redis is back (last writer wins); otherwise the node
 *   re-reads the revision and catches up. A Redis that lost its data is re-seeded.
 */
import { stableJson } from '../../shared/admin-signature';
import type { AuthState } from '../auth/auth-state';
import type { Logger } from '../logging/logger';
import type { RedisLinks } from './redis-links';
import type { SharedSettingsPort } from './settings-document';

type Json = Record<string, unknown>;

/** Longest wait (ms) of `at(rev)` for a revision to be adopted. */
export const SETTINGS_WAIT_MS = 5_000;

/**
 * KEYS: document, revision. ARGV: text, our revision, node id, channel, "seed" (only if the
 * document is missing). Returns the new revision, or -1 when seeding found a document.
 */
const PUBLISH_SCRIPT = `
if ARGV[5] == 'seed' and redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local cur = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
local rev = math.max(cur, tonumber(ARGV[2])) + 1
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], rev)
redis.call('PUBLISH', ARGV[4], cjson.encode({node_id = ARGV[3], rev = rev}))
return rev
`;

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
  /** Stable JSON of this node's document as of the last publish/adoption. */
  private lastText: string | null = null;
  /** A local change could not be published (Redis down): publish it when Redis is back. */
  private dirty = false;
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

  private async publishIfChanged(): Promise<void> {
    const doc = this.deps.port.document();
    const text = stableJson(doc);
    if (text === this.lastText) return;
    if (!this.synced) return; // before the first catch-up, the cluster's document wins
    await this.publish(doc, text, false);
  }

  /** Writes `doc` with a new revision; false when seeding found a document. */
  private async publish(doc: Json, text: string, seed: boolean): Promise<boolean> {
    try {
      const rev = (await this.deps.links.command.eval(
        PUBLISH_SCRIPT,
        2,
        this.docKey,
        this.revKey,
        JSON.stringify(doc),
        String(this.rev),
        this.deps.nodeId,
        this.channel,
        seed ? 'seed' : 'write',
      )) as number;
      if (rev === -1) return false;
      this.dirty = false;
      this.lastText = text;
      this.setRev(rev);
      this.deps.logger.info({ rev, seed }, 'cluster settings published');
      return true;
    } catch (err) {
      this.dirty = true;
      this.lastText = text;
      this.deps.logger.warn(
        { err: (err as Error).message },
        'cluster settings not published (redis unavailable); kept locally, published when redis is back',
      );
      return true;
    }
  }

  /** Start and reconnection: adopt a newer document, seed an empty cluster, or push ours. */
  private async catchUp(): Promise<void> {
    if (!this.deps.links.up) return;
    const [found, revText] = await this.deps.links.command.mget(this.docKey, this.revKey);
    const text = found ?? null;
    const stored = Number(revText ?? 0) || 0;
    const mine = this.deps.port.document();
    const mineText = stableJson(mine);
    if (text === null || (this.synced && (this.dirty || stored < this.rev))) {
      // Empty cluster (or Redis lost its data), or our change made while Redis was down.
      const seed = text === null;
      this.synced = true;
      if (!(await this.publish(mine, mineText, seed))) await this.catchUp();
      return;
    }
    this.synced = true;
    if (stored > this.rev) this.adopt(text, stored);
    else if (this.lastText === null) this.lastText = mineText;
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
      if (doc && stored > this.rev) this.adopt(doc, stored);
    });
  }

  private adopt(text: string, rev: number): void {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
        throw new Error('not a JSON object');
      }
      this.deps.port.adopt(doc as Json);
    } catch (err) {
      if (rev !== this.refusedRev) {
        this.refusedRev = rev;
        this.deps.logger.error(
          { rev, err: (err as Error).message },
          'cluster settings document refused; this node keeps its settings',
        );
      }
      return;
    }
    this.lastText = stableJson(this.deps.port.document());
    this.setRev(rev);
    this.deps.logger.info({ rev }, 'cluster settings adopted');
  }
}
