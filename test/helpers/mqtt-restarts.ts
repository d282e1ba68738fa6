/**
 * Brokers with the MQTT listener on one SQLite file in a fresh temp dir per test, to close and
 * open again (MQTT state across a restart). Registers its own beforeEach / afterEach: every
 * broker started here is closed and the dir removed after each test.
 *
 *   const brokers = useRestartingBrokers();
 *   const h1 = await brokers.start();
 *   await brokers.stop(h1);
 *   const h2 = await brokers.start();
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { startBroker, type BrokerSettings, type Harness } from './broker-harness';

export type MqttStorage = 'memory' | 'sqlite';

/** Stored MQTT rows of one client id, per table (`mqtt_subscriptions` … `mqtt_wills`). */
export interface ClientRows {
  subscriptions: number;
  outgoing: number;
  incoming: number;
  wills: number;
}

export interface RestartingBrokers {
  /** The SQLite file (valid inside a test). */
  readonly file: string;
  /** Starts a broker on the file (`storage: "memory"`: no file), MQTT on a free port. */
  start(storage?: MqttStorage, extra?: Partial<BrokerSettings>): Promise<Harness>;
  /** Closes `h` now (a restart's first half). */
  stop(h: Harness): Promise<void>;
  /** The file's rows of the MQTT client `clientId` (as the client chose it, any realm). */
  rows(clientId: string): ClientRows;
}

export function useRestartingBrokers(name = 'mqtt.sqlite'): RestartingBrokers {
  let dir: TempDir | undefined;
  const open: Harness[] = [];
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    for (const h of open.splice(0)) await h.close();
    await dir?.remove();
    dir = undefined;
  });
  const file = (): string => {
    if (!dir) throw new Error('no temp dir (use inside a test)');
    return join(dir.path, name);
  };
  return {
    get file() {
      return file();
    },
    async start(storage = 'sqlite', extra = {}) {
      const h = await startBroker({
        storage,
        ...(storage === 'sqlite' ? { storage_options: { filename: file() } } : {}),
        mqtt: { enabled: true, port: 0 },
        ...extra,
      } as BrokerSettings);
      open.push(h);
      return h;
    },
    async stop(h) {
      const i = open.indexOf(h);
      if (i >= 0) open.splice(i, 1);
      await h.close();
    },
    rows(clientId) {
      const db = new Database(file(), { readonly: true });
      try {
        // Internal client ids are `<realm prefix>/<client id>`.
        const suffix = `/${clientId}`;
        const count = (table: string): number =>
          (
            db
              .prepare(`SELECT count(*) AS n FROM ${table} WHERE substr(client_id, -?) = ?`)
              .get(suffix.length, suffix) as { n: number }
          ).n;
        return {
          subscriptions: count('mqtt_subscriptions'),
          outgoing: count('mqtt_outgoing'),
          incoming: count('mqtt_incoming'),
          wills: count('mqtt_wills'),
        };
      } finally {
        db.close();
      }
    },
  };
}
