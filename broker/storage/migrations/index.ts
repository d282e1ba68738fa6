/**
 * Numbered schema migrations of the SQLite message store, applied in order inside one
 * transaction each and tracked with `PRAGMA user_version` (style: Signal Desktop). A
 * migration is never edited once released: add a new one. Each has a test in
 * `test/broker/storage/sqlite-migrations.test.ts`.
 *
 * Source of the schema: `spec/protocol-core.md` §16.3 ("SQLite"): `messages` and `dlq`
 * tables with the reference's columns and indexes; ordering follows `rowid`.
 */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'messages and dlq tables (tyo-mq §16.3)',
    sql: `
      CREATE TABLE IF NOT EXISTS messages (
        id TEXT PRIMARY KEY,
        realm TEXT NOT NULL,
        event TEXT NOT NULL,
        consumer TEXT NOT NULL DEFAULT '',
        payload TEXT NOT NULL,
        producer TEXT,
        created_at TEXT NOT NULL,
        expires_at INTEGER
      );
      CREATE INDEX IF NOT EXISTS idx_messages_queue
        ON messages (realm, event, consumer, expires_at);
      CREATE TABLE IF NOT EXISTS dlq (
        id TEXT PRIMARY KEY,
        realm TEXT NOT NULL,
        event TEXT NOT NULL,
        consumer TEXT NOT NULL DEFAULT '',
        payload TEXT NOT NULL,
        producer TEXT,
        created_at TEXT NOT NULL,
        expires_at INTEGER,
        reason TEXT,
        dead_lettered_at TEXT
      );
      CREATE INDEX IF NOT EXISTS idx_dlq_realm ON dlq (realm, dead_lettered_at);
    `,
  },
  {
    version: 2,
    description: 'index on expires_at for the periodic purge of expired copies',
    sql: `
      CREATE INDEX IF NOT EXISTS idx_messages_expires
        ON messages (expires_at) WHERE expires_at IS NOT NULL;
    `,
  },
  {
    version: 3,
    description: 'durable subscriptions, so copies keep being stored across restarts',
    sql: `
      CREATE TABLE IF NOT EXISTS durable_subscriptions (
        realm TEXT NOT NULL,
        key TEXT NOT NULL,
        consumer TEXT NOT NULL,
        record TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (realm, key, consumer)
      );
    `,
  },
  {
    version: 4,
    description:
      'delivery attempts kept with each copy, so redeliveries are marked across reconnects and restarts',
    sql: `
      ALTER TABLE messages ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE dlq ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 5,
    description:
      'MQTT sessions and retained messages (aedes persistence: subscriptions, queued and in-flight packets, QoS 2 receipts, wills)',
    sql: `
      CREATE TABLE IF NOT EXISTS mqtt_retained (
        topic TEXT PRIMARY KEY,
        packet TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS mqtt_subscriptions (
        client_id TEXT NOT NULL,
        topic TEXT NOT NULL,
        options TEXT NOT NULL,
        PRIMARY KEY (client_id, topic)
      );
      CREATE TABLE IF NOT EXISTS mqtt_outgoing (
        seq INTEGER PRIMARY KEY,
        client_id TEXT NOT NULL,
        packet TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS idx_mqtt_outgoing_client ON mqtt_outgoing (client_id, seq);
      CREATE TABLE IF NOT EXISTS mqtt_incoming (
        client_id TEXT NOT NULL,
        message_id INTEGER NOT NULL,
        packet TEXT NOT NULL,
        PRIMARY KEY (client_id, message_id)
      );
      CREATE TABLE IF NOT EXISTS mqtt_wills (
        client_id TEXT PRIMARY KEY,
        packet TEXT NOT NULL
      );
    `,
  },
  {
    version: 6,
    description:
      'per-identity state of the tyo-mq 1.1 extensions (E2EE key lists, principal pins), keyed (realm, identity, kind)',
    sql: `
      CREATE TABLE IF NOT EXISTS identity_state (
        realm TEXT NOT NULL,
        identity TEXT NOT NULL,
        kind TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (realm, identity, kind)
      );
    `,
  },
];

/** Highest schema version this build knows. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
