/**
 * Every SQL statement of the SQLite message store, prepared once, parameters always bound
 * (style: Signal Desktop's one declared SQL interface). Rows map to §16.2 entries here.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { DeliveryEnvelope } from '../../shared/protocol-events';
import {
  replayedEnvelope,
  type DlqEntry,
  type PersistedSubscription,
  type QueueCount,
  type RealmRenameCounts,
  type StoredEntry,
} from './message-store';
import { IdentityStatements } from './identity-state';
import { MqttStatements } from './mqtt-state';

/** A `messages` row as stored: the envelope is JSON text. */
export interface Row {
  id: string;
  realm: string;
  event: string;
  consumer: string;
  payload: string;
  producer: string | null;
  created_at: string;
  expires_at: number | null;
  attempts: number;
}
type DlqRow = Row & { reason: string | null; dead_lettered_at: string | null };

const COLUMNS = 'id, realm, event, consumer, payload, producer, created_at, expires_at, attempts';
type QueueRow = Omit<QueueCount, 'n'>;

function toEntry(row: Row): StoredEntry {
  return {
    id: row.id,
    realm: row.realm,
    event: row.event,
    consumer: row.consumer,
    message: JSON.parse(row.payload) as DeliveryEnvelope,
    producer: row.producer ?? '',
    created_at: row.created_at,
    expires_at: row.expires_at,
    attempts: row.attempts,
  };
}

/** Tallies removed rows per queue. */
function perQueue(rows: QueueRow[]): QueueCount[] {
  const out = new Map<string, QueueCount>();
  for (const r of rows) {
    const key = JSON.stringify([r.realm, r.event, r.consumer]);
    const c = out.get(key);
    if (c) c.n++;
    else out.set(key, { ...r, n: 1 });
  }
  return [...out.values()];
}

function toDlq(row: DlqRow): DlqEntry {
  return {
    ...toEntry(row),
    reason: row.reason ?? '',
    dead_lettered_at: row.dead_lettered_at ?? '',
  };
}

export class SqliteStatements {
  readonly insert: Statement<[Row]>;
  readonly delete: Statement<[string]>;
  readonly setAttempts: Statement<[number, string]>;
  private readonly purgeExpiredBatch: Statement<[number, number], QueueRow>;
  private readonly depths: Statement<[], QueueCount>;
  private readonly dlqCounts: Statement<[], { realm: string; n: number }>;
  private readonly purgeOneQueue: Statement<[string, string, string]>;
  private readonly selectQueue: Statement<[string, string, string, number], Row>;
  private readonly selectQueuePage: Statement<
    [string, string, string, number, number, number],
    Row
  >;
  private readonly selectOne: Statement<[string, number], Row>;
  private readonly copyToDlq: Statement<[string, string, string, number]>;
  private readonly selectDlqRealm: Statement<[string], DlqRow>;
  private readonly selectDlqAll: Statement<[], DlqRow>;
  private readonly selectDlqOne: Statement<[string], DlqRow>;
  private readonly deleteDlq: Statement<[string]>;
  private readonly count: Statement<[string, number], { n: number }>;
  private readonly purgeMessages: Statement<[string]>;
  private readonly purgeDlq: Statement<[string]>;
  private readonly purgeSubscriptions: Statement<[string]>;
  private readonly realmHolds: Statement<[string, string, string], { held: number }>;
  private readonly renameMessages: Statement<[string, string]>;
  private readonly renameDlq: Statement<[string, string]>;
  private readonly renameSubscriptions: Statement<[string, string]>;
  readonly saveSubscription: Statement<[string, string, string, string, string]>;
  readonly deleteSubscription: Statement<[string, string, string]>;
  private readonly selectSubscriptions: Statement<
    [],
    { realm: string; key: string; consumer: string; record: string }
  >;

  /** The MQTT session state tables (migration 5). */
  readonly mqtt: MqttStatements;
  /** The extensions' per-identity state (migration 6). */
  readonly identities: IdentityStatements;

  constructor(db: Database) {
    this.mqtt = new MqttStatements(db);
    this.identities = new IdentityStatements(db);
    this.insert = db.prepare(
      `INSERT OR REPLACE INTO messages (${COLUMNS})
       VALUES (@id, @realm, @event, @consumer, @payload, @producer, @created_at, @expires_at, @attempts)`,
    );
    this.delete = db.prepare('DELETE FROM messages WHERE id = ?');
    this.setAttempts = db.prepare('UPDATE messages SET attempts = ? WHERE id = ?');
    // Bounded: one batch of the expiry index per call, never the whole table on a read path.
    this.purgeExpiredBatch = db.prepare(
      `DELETE FROM messages WHERE rowid IN (
         SELECT rowid FROM messages WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?)
       RETURNING realm, event, consumer`,
    );
    this.dlqCounts = db.prepare('SELECT realm, COUNT(*) AS n FROM dlq GROUP BY realm');
    this.depths = db.prepare(
      'SELECT realm, event, consumer, COUNT(*) AS n FROM messages GROUP BY realm, event, consumer',
    );
    this.purgeOneQueue = db.prepare(
      'DELETE FROM messages WHERE realm = ? AND event = ? AND consumer = ?',
    );
    this.selectQueue = db.prepare(
      `SELECT ${COLUMNS} FROM messages
       WHERE realm = ? AND event = ? AND consumer = ? AND (expires_at IS NULL OR expires_at > ?)
       ORDER BY rowid`,
    );
    this.selectQueuePage = db.prepare(
      `SELECT ${COLUMNS} FROM messages
       WHERE realm = ? AND event = ? AND consumer = ? AND (expires_at IS NULL OR expires_at > ?)
       ORDER BY rowid LIMIT ? OFFSET ?`,
    );
    this.selectOne = db.prepare(
      `SELECT ${COLUMNS} FROM messages WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)`,
    );
    this.copyToDlq = db.prepare(
      `INSERT OR REPLACE INTO dlq (${COLUMNS}, reason, dead_lettered_at)
       SELECT ${COLUMNS}, ?, ? FROM messages
       WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)`,
    );
    this.selectDlqRealm = db.prepare(
      `SELECT ${COLUMNS}, reason, dead_lettered_at FROM dlq WHERE realm = ? ORDER BY rowid`,
    );
    this.selectDlqAll = db.prepare(
      `SELECT ${COLUMNS}, reason, dead_lettered_at FROM dlq ORDER BY rowid`,
    );
    this.selectDlqOne = db.prepare(
      `SELECT ${COLUMNS}, reason, dead_lettered_at FROM dlq WHERE id = ?`,
    );
    this.deleteDlq = db.prepare('DELETE FROM dlq WHERE id = ?');
    this.count = db.prepare(
      'SELECT COUNT(*) AS n FROM messages WHERE realm = ? AND (expires_at IS NULL OR expires_at > ?)',
    );
    this.purgeMessages = db.prepare('DELETE FROM messages WHERE realm = ?');
    this.purgeDlq = db.prepare('DELETE FROM dlq WHERE realm = ?');
    this.purgeSubscriptions = db.prepare('DELETE FROM durable_subscriptions WHERE realm = ?');
    this.realmHolds = db.prepare(
      `SELECT EXISTS (SELECT 1 FROM messages WHERE realm = ?)
           OR EXISTS (SELECT 1 FROM dlq WHERE realm = ?)
           OR EXISTS (SELECT 1 FROM durable_subscriptions WHERE realm = ?) AS held`,
    );
    // Rows keep their rowid: queue, DLQ and subscription order are unchanged.
    this.renameMessages = db.prepare('UPDATE messages SET realm = ? WHERE realm = ?');
    this.renameDlq = db.prepare('UPDATE dlq SET realm = ? WHERE realm = ?');
    this.renameSubscriptions = db.prepare(
      'UPDATE durable_subscriptions SET realm = ? WHERE realm = ?',
    );
    // `ON CONFLICT … DO UPDATE` keeps the row (and its rowid order) of a re-saved subscription.
    this.saveSubscription = db.prepare(
      `INSERT INTO durable_subscriptions (realm, key, consumer, record, updated_at)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (realm, key, consumer) DO UPDATE SET record = excluded.record, updated_at = excluded.updated_at`,
    );
    this.deleteSubscription = db.prepare(
      'DELETE FROM durable_subscriptions WHERE realm = ? AND key = ? AND consumer = ?',
    );
    this.selectSubscriptions = db.prepare(
      'SELECT realm, key, consumer, record FROM durable_subscriptions ORDER BY rowid',
    );
  }

  /** Every persisted subscription; rows whose JSON no longer parses are skipped. */
  loadSubscriptions(): PersistedSubscription[] {
    const out: PersistedSubscription[] = [];
    for (const row of this.selectSubscriptions.all()) {
      try {
        out.push({
          realm: row.realm,
          key: row.key,
          consumer: row.consumer,
          record: JSON.parse(row.record),
        });
      } catch {
        // A damaged row must not stop the broker; it is simply not restored.
      }
    }
    return out;
  }

  dequeue(realm: string, event: string, consumer: string, now: number): StoredEntry[] {
    return this.selectQueue.all(realm, event, consumer, now).map(toEntry);
  }

  /** One page of `dequeue`: at most `limit` copies from position `offset`. */
  peekQueue(
    realm: string,
    event: string,
    consumer: string,
    now: number,
    offset: number,
    limit: number,
  ): StoredEntry[] {
    return this.selectQueuePage.all(realm, event, consumer, now, limit, offset).map(toEntry);
  }

  get(id: string, now: number): StoredEntry | null {
    const row = this.selectOne.get(id, now);
    return row ? toEntry(row) : null;
  }

  /** Upserts the copy into `dlq`, then deletes it from `messages` (§16.3). Call in a transaction. */
  deadLetter(id: string, reason: string, at: string, now: number): boolean {
    // An expired copy is not dead-lettered (§16.2); the purge removes it.
    if (this.copyToDlq.run(reason, at, id, now).changes === 0) return false;
    this.delete.run(id);
    return true;
  }

  listDlq(realm: string | null): DlqEntry[] {
    return (realm === null ? this.selectDlqAll.all() : this.selectDlqRealm.all(realm)).map(toDlq);
  }

  discardDlq(id: string, realm?: string): boolean {
    const row = this.selectDlqOne.get(id);
    if (!row || (realm !== undefined && row.realm !== realm)) return false;
    return this.deleteDlq.run(id).changes > 0;
  }

  /**
   * Moves a DLQ row back to `messages` under `newId` (minted by the caller, which owns the id
   * pool) with a fresh expiry. Call in a transaction.
   */
  replayDlq(
    id: string,
    realm: string | undefined,
    expires: number | null,
    now: number,
    newId: string,
  ) {
    const row = this.selectDlqOne.get(id);
    if (!row || (realm !== undefined && row.realm !== realm)) return null;
    this.deleteDlq.run(id);
    const requeued: Row = {
      id: newId,
      realm: row.realm,
      event: row.event,
      consumer: row.consumer,
      payload: JSON.stringify(
        replayedEnvelope(
          JSON.parse(row.payload) as DeliveryEnvelope,
          row.dead_lettered_at ?? new Date(now).toISOString(),
        ),
      ),
      producer: row.producer,
      created_at: new Date(now).toISOString(),
      expires_at: expires,
      attempts: 0,
    };
    this.insert.run(requeued);
    return toEntry(requeued);
  }

  /** Deletes at most `limit` expired copies; returns how many each queue lost. */
  purgeExpired(now: number, limit: number): QueueCount[] {
    return perQueue(this.purgeExpiredBatch.all(now, limit));
  }

  queueDepths(): QueueCount[] {
    return this.depths.all();
  }

  dlqDepths(): Array<{ realm: string; n: number }> {
    return this.dlqCounts.all();
  }

  purgeQueue(realm: string, event: string, consumer: string): number {
    return this.purgeOneQueue.run(realm, event, consumer).changes;
  }

  countQueued(realm: string, now: number): number {
    return this.count.get(realm, now)?.n ?? 0;
  }

  /**
   * Moves realm `from`'s copies, DLQ entries, durable subscriptions and (with `mqttPrefixes`)
   * MQTT state to `to`; null, changing nothing, when `to` holds any. Call in a transaction.
   */
  renameRealm(
    from: string,
    to: string,
    mqttPrefixes: ReadonlyArray<readonly [string, string]> | undefined,
  ): RealmRenameCounts | null {
    if (from === to || this.realmHolds.get(to, to, to)?.held) return null;
    if (mqttPrefixes && this.mqtt.holdsPrefixes(mqttPrefixes.map(([, t]) => t))) return null;
    const mqtt = mqttPrefixes
      ? this.mqtt.renamePrefixes(mqttPrefixes, to)
      : { retained: 0, sessions: 0 };
    // The extensions' identity state follows the realm (not counted: `moved` lists core data).
    this.identities.renameRealm(from, to);
    return {
      queued: this.renameMessages.run(to, from).changes,
      dlq: this.renameDlq.run(to, from).changes,
      subscriptions: this.renameSubscriptions.run(to, from).changes,
      retained: mqtt.retained,
      mqtt_sessions: mqtt.sessions,
    };
  }

  /** Deletes a realm's copies, DLQ and durable subscriptions; returns copies + DLQ removed. */
  purgeRealm(realm: string): number {
    this.purgeSubscriptions.run(realm);
    this.identities.purgeRealm(realm);
    return this.purgeMessages.run(realm).changes + this.purgeDlq.run(realm).changes;
  }
}
