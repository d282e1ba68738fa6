/**
 * MQTT session state in the SQLite message store (issue 14; migration 5): what aedes'
 * persistence keeps — retained messages, persistent sessions' subscriptions, their queued and
 * in-flight outgoing packets, QoS 2 receipts, and wills — so it survives a broker restart.
 *
 * The store only keeps text: packets arrive already encoded (JSON, payload in base64) by the
 * MQTT side (`broker/mqtt/stored-persistence.ts`), which owns their meaning. Client ids and
 * topics are the realm-scoped internal names. Writes go through the store's group commit, like
 * every other write, so they are off the event loop and a resolved write is on disk.
 */
import type { Database, Statement } from 'better-sqlite3';

/** One write to the MQTT state tables. */
export type MqttStateWrite =
  | { op: 'retained'; topic: string; packet: string | null }
  | { op: 'subscribe'; clientId: string; topic: string; options: string }
  | { op: 'unsubscribe'; clientId: string; topic: string }
  | { op: 'cleanSubscriptions'; clientId: string }
  | { op: 'enqueue'; seq: number; clientId: string; packet: string }
  | { op: 'replaceOutgoing'; seq: number; packet: string }
  | { op: 'dequeue'; seq: number }
  | { op: 'incoming'; clientId: string; messageId: number; packet: string | null }
  | { op: 'cleanIncoming'; clientId: string }
  | { op: 'will'; clientId: string; packet: string | null }
  /**
   * Deletes every row whose client id or topic starts with one of `prefixes` (a removed realm's
   * internal names, realm-topics.ts): retained messages, subscriptions, queues, receipts, wills.
   */
  | { op: 'purgePrefixes'; prefixes: string[] };

/** Everything stored, as read once when the MQTT listener starts. Outgoing in `seq` order. */
export interface MqttStateSnapshot {
  retained: Array<{ topic: string; packet: string }>;
  subscriptions: Array<{ client_id: string; topic: string; options: string }>;
  outgoing: Array<{ seq: number; client_id: string; packet: string }>;
  incoming: Array<{ client_id: string; message_id: number; packet: string }>;
  wills: Array<{ client_id: string; packet: string }>;
}

/**
 * The MQTT state facet of a store that can keep it (the SQLite store). Writes resolve once
 * committed; a failed commit rejects.
 */
export interface MqttStateStore {
  load(): Promise<MqttStateSnapshot>;
  write(change: MqttStateWrite): Promise<void>;
}

/** Named parameters of a prefix rename: new prefix, where the rest starts, the old prefix. */
interface RenameArgs {
  to: string;
  start: number;
  len: number;
  from: string;
}

/** The prepared statements of the MQTT state tables (run inside the storage worker). */
export class MqttStatements {
  private readonly run: {
    [K in Exclude<MqttStateWrite['op'], 'purgePrefixes'>]: Statement<unknown[]>;
  };
  private readonly deleteRetained: Statement<[string]>;
  private readonly deleteIncoming: Statement<[string, number]>;
  private readonly deleteWill: Statement<[string]>;
  /** `(length, prefix)`: compared with substr, not LIKE (`%` is common in encoded realms). */
  private readonly purge: Array<Statement<[number, string]>>;
  private readonly db: Database;
  /** `(length, prefix)`: one row (or none) under the prefix, per table and column. */
  private readonly exists: Array<Statement<[number, string]>>;
  private readonly clientsUnder: Statement<
    [number, string, number, string, number, string, number, string],
    { client_id: string }
  >;
  /** `(to, start, length, from)` renames; see `renamePrefixes`. */
  private readonly rename: {
    retained: Statement<[RenameArgs]>;
    subscriptionClient: Statement<[RenameArgs]>;
    subscriptionTopic: Statement<[RenameArgs]>;
    packets: Array<Statement<[RenameArgs]>>;
    clients: Array<Statement<[RenameArgs]>>;
    willIdentity: Statement<[{ realm: string; len: number; from: string }]>;
  };

  constructor(db: Database) {
    this.db = db;
    const CLIENT_TABLES = ['mqtt_subscriptions', 'mqtt_outgoing', 'mqtt_incoming', 'mqtt_wills'];
    this.exists = [
      db.prepare('SELECT 1 FROM mqtt_retained WHERE substr(topic, 1, ?) = ? LIMIT 1'),
      db.prepare('SELECT 1 FROM mqtt_subscriptions WHERE substr(topic, 1, ?) = ? LIMIT 1'),
      ...CLIENT_TABLES.map((table) =>
        db.prepare<[number, string]>(
          `SELECT 1 FROM ${table} WHERE substr(client_id, 1, ?) = ? LIMIT 1`,
        ),
      ),
    ];
    this.clientsUnder = db.prepare(
      CLIENT_TABLES.map(
        (table) => `SELECT client_id FROM ${table} WHERE substr(client_id, 1, ?) = ?`,
      ).join(' UNION '),
    );
    // Parameters: @to new prefix, @start where the rest starts, @len and @from the old prefix.
    // Right-hand sides of an UPDATE read the row as it was, so `topic` is the old one in both.
    const topicOf = (column: string) => `@to || substr(${column}, @start)`;
    const inPacket = (path: string) =>
      `CASE WHEN substr(json_extract(packet, '${path}'), 1, @len) = @from
         THEN json_set(packet, '${path}', @to || substr(json_extract(packet, '${path}'), @start))
         ELSE packet END`;
    this.rename = {
      retained: db.prepare(
        `UPDATE mqtt_retained SET topic = ${topicOf('topic')},
           packet = json_set(packet, '$.topic', ${topicOf('topic')})
         WHERE substr(topic, 1, @len) = @from`,
      ),
      subscriptionClient: db.prepare(
        `UPDATE mqtt_subscriptions SET client_id = ${topicOf('client_id')}
         WHERE substr(client_id, 1, @len) = @from`,
      ),
      subscriptionTopic: db.prepare(
        `UPDATE mqtt_subscriptions SET topic = ${topicOf('topic')} WHERE substr(topic, 1, @len) = @from`,
      ),
      packets: ['mqtt_outgoing', 'mqtt_incoming', 'mqtt_wills'].map((table) =>
        db.prepare<[RenameArgs]>(
          `UPDATE ${table} SET packet = ${inPacket('$.topic')}
           WHERE substr(json_extract(packet, '$.topic'), 1, @len) = @from`,
        ),
      ),
      clients: [
        db.prepare<[RenameArgs]>(
          `UPDATE mqtt_wills SET packet = ${inPacket('$.clientId')}
           WHERE substr(json_extract(packet, '$.clientId'), 1, @len) = @from`,
        ),
        ...['mqtt_outgoing', 'mqtt_incoming', 'mqtt_wills'].map((table) =>
          db.prepare<[RenameArgs]>(
            `UPDATE ${table} SET client_id = ${topicOf('client_id')}
             WHERE substr(client_id, 1, @len) = @from`,
          ),
        ),
      ],
      willIdentity: db.prepare(
        `UPDATE mqtt_wills SET packet = json_set(packet, '$.identity.realm', @realm)
         WHERE substr(client_id, 1, @len) = @from AND json_type(packet, '$.identity') = 'object'`,
      ),
    };
    this.run = {
      retained: db.prepare('INSERT OR REPLACE INTO mqtt_retained (topic, packet) VALUES (?, ?)'),
      subscribe: db.prepare(
        'INSERT OR REPLACE INTO mqtt_subscriptions (client_id, topic, options) VALUES (?, ?, ?)',
      ),
      unsubscribe: db.prepare('DELETE FROM mqtt_subscriptions WHERE client_id = ? AND topic = ?'),
      cleanSubscriptions: db.prepare('DELETE FROM mqtt_subscriptions WHERE client_id = ?'),
      enqueue: db.prepare('INSERT INTO mqtt_outgoing (seq, client_id, packet) VALUES (?, ?, ?)'),
      replaceOutgoing: db.prepare('UPDATE mqtt_outgoing SET packet = ? WHERE seq = ?'),
      dequeue: db.prepare('DELETE FROM mqtt_outgoing WHERE seq = ?'),
      incoming: db.prepare(
        'INSERT OR REPLACE INTO mqtt_incoming (client_id, message_id, packet) VALUES (?, ?, ?)',
      ),
      cleanIncoming: db.prepare('DELETE FROM mqtt_incoming WHERE client_id = ?'),
      will: db.prepare('INSERT OR REPLACE INTO mqtt_wills (client_id, packet) VALUES (?, ?)'),
    };
    this.deleteRetained = db.prepare('DELETE FROM mqtt_retained WHERE topic = ?');
    this.deleteIncoming = db.prepare(
      'DELETE FROM mqtt_incoming WHERE client_id = ? AND message_id = ?',
    );
    this.deleteWill = db.prepare('DELETE FROM mqtt_wills WHERE client_id = ?');
    this.purge = [
      db.prepare('DELETE FROM mqtt_retained WHERE substr(topic, 1, ?) = ?'),
      ...['mqtt_subscriptions', 'mqtt_outgoing', 'mqtt_incoming', 'mqtt_wills'].map((table) =>
        db.prepare<[number, string]>(`DELETE FROM ${table} WHERE substr(client_id, 1, ?) = ?`),
      ),
    ];
  }

  write(w: MqttStateWrite): void {
    switch (w.op) {
      case 'retained':
        if (w.packet === null) this.deleteRetained.run(w.topic);
        else this.run.retained.run(w.topic, w.packet);
        return;
      case 'subscribe':
        this.run.subscribe.run(w.clientId, w.topic, w.options);
        return;
      case 'unsubscribe':
        this.run.unsubscribe.run(w.clientId, w.topic);
        return;
      case 'cleanSubscriptions':
        this.run.cleanSubscriptions.run(w.clientId);
        return;
      case 'enqueue':
        this.run.enqueue.run(w.seq, w.clientId, w.packet);
        return;
      case 'replaceOutgoing':
        this.run.replaceOutgoing.run(w.packet, w.seq);
        return;
      case 'dequeue':
        this.run.dequeue.run(w.seq);
        return;
      case 'incoming':
        if (w.packet === null) this.deleteIncoming.run(w.clientId, w.messageId);
        else this.run.incoming.run(w.clientId, w.messageId, w.packet);
        return;
      case 'cleanIncoming':
        this.run.cleanIncoming.run(w.clientId);
        return;
      case 'will':
        if (w.packet === null) this.deleteWill.run(w.clientId);
        else this.run.will.run(w.clientId, w.packet);
        return;
      case 'purgePrefixes':
        for (const prefix of w.prefixes) {
          for (const statement of this.purge) statement.run(prefix.length, prefix);
        }
        return;
    }
  }

  /** Whether any MQTT state row has a client id or topic starting with one of `prefixes`. */
  holdsPrefixes(prefixes: readonly string[]): boolean {
    for (const prefix of prefixes) {
      for (const statement of this.exists) {
        if (statement.get(prefix.length, prefix) !== undefined) return true;
      }
    }
    return false;
  }

  /**
   * Renames every MQTT state row under the `[from, to]` prefix pairs (`rename_realm`): client
   * ids, topics, the `topic`/`clientId` inside stored packets, and a will's stored identity
   * realm (set to `realm`). Call inside the store's transaction; the caller has checked that
   * nothing is stored under the `to` prefixes. Returns the retained messages and the distinct
   * client ids moved.
   */
  renamePrefixes(
    pairs: ReadonlyArray<readonly [string, string]>,
    realm: string,
  ): { retained: number; sessions: number } {
    const clients = new Set<string>();
    let retained = 0;
    for (const [from, to] of pairs) {
      const start = from.length + 1;
      const args = [from.length, from] as const;
      for (const row of this.clientsUnder.all(...args, ...args, ...args, ...args)) {
        clients.add(row.client_id);
      }
      const named: RenameArgs = { to, start, len: from.length, from };
      retained += this.rename.retained.run(named).changes;
      this.rename.subscriptionClient.run(named);
      this.rename.subscriptionTopic.run(named);
      for (const statement of this.rename.packets) statement.run(named);
      // Before the client ids move: it selects the wills by their old client id.
      this.rename.willIdentity.run({ realm, len: from.length, from });
      for (const statement of this.rename.clients) statement.run(named);
    }
    return { retained, sessions: clients.size };
  }

  load(): MqttStateSnapshot {
    const all = <T>(sql: string) => this.db.prepare(sql).all() as T[];
    return {
      retained: all('SELECT topic, packet FROM mqtt_retained ORDER BY rowid'),
      subscriptions: all('SELECT client_id, topic, options FROM mqtt_subscriptions ORDER BY rowid'),
      outgoing: all('SELECT seq, client_id, packet FROM mqtt_outgoing ORDER BY seq'),
      incoming: all('SELECT client_id, message_id, packet FROM mqtt_incoming ORDER BY rowid'),
      wills: all('SELECT client_id, packet FROM mqtt_wills ORDER BY rowid'),
    };
  }
}
