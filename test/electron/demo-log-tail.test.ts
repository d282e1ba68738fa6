/**
 * The Local broker view's log tail stays readable during a demo: the demo's stuck consumer
 * dead-letters two messages a second, and the broker (at the console's level, warn) writes the
 * first `dead-lettered` of each key in full and then a count per 10 s — not one line per message
 * — while every message still reaches the DLQ.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { ManagerClient } from '../../electron/services/manager-client';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import { localAdminToken } from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const connectionId = LOCAL_CONNECTION_ID;

describe('log tail during a demo', () => {
  let dir: TempDir;
  let local: LocalConsole;
  let manager: ManagerClient;

  beforeAll(async () => {
    dir = await makeTempDir();
    const dataDir = path.join(dir.path, 'data');
    local = createLocalConsole({
      brokerPort: 0,
      dataDir,
      supervisor: { env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'warn' } },
    });
    const status = await local.startBroker();
    manager = new ManagerClient({
      url: `http://127.0.0.1:${status.port}`,
      secret: localAdminToken(dataDir),
    });
  });

  afterAll(async () => {
    manager?.close();
    await local?.close();
    await dir?.remove();
  });

  it('writes a dead-letter flood as one line per key plus counts', async () => {
    await local.service.startDemo({ connectionId });
    const dlq = async (): Promise<number> => {
      const reply = await manager.command({ command: 'dlq_list', realm: 'switchboard-demo' });
      return (reply.entries as unknown[]).length;
    };
    await expect.poll(dlq, { timeout: 30_000, interval: 500 }).toBeGreaterThanOrEqual(10);
    const deadLettered = local.supervisor
      .logs()
      .map(({ line }) => {
        try {
          return JSON.parse(line) as {
            msg?: string;
            realm?: string;
            event?: string;
            reason?: string;
          };
        } catch {
          return {};
        }
      })
      .filter((record) => record.msg?.startsWith('dead-lettered'));
    const full = deadLettered.filter((record) => record.msg === 'dead-lettered');
    const keys = new Set(full.map((r) => `${r.realm} ${r.event} ${r.reason}`));
    // One full line per key; at most one summary per key per 10 s window besides.
    expect(full.length).toBe(keys.size);
    expect(keys.size).toBeLessThanOrEqual(2);
    expect(deadLettered.length).toBeLessThanOrEqual(keys.size * 4);
    await local.service.stopDemo({ connectionId });
  }, 60_000);
});
