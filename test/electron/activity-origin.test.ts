/**
 * Who started each audited command (issue: the Activity log mixed the console's own background
 * commands with the operator's), against the real local broker:
 *   - clients taken with origin `console` record `origin: 'console'`; the default is `operator`;
 *   - a console clean-up whose realm is already gone (`NOT_FOUND`) is recorded as ok, `already
 *     gone`; the same refusal of an operator's command stays a failure;
 *   - demo mode's set-up and clean-up are the console's own; `listActivity` filters by origin;
 *   - entries written before the field existed read as the operator's;
 *   - the secret rules hold whatever the origin.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityLog, AuditedManagerPool } from '../../electron/services/activity-log';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import { SwitchboardError } from '../../shared/error-catalogue';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const connectionId = LOCAL_CONNECTION_ID;

describe('audit origin on the real local broker', () => {
  let dir: TempDir;
  let local: LocalConsole;
  let log: ActivityLog;
  let pool: AuditedManagerPool;

  beforeAll(async () => {
    dir = await makeTempDir();
    local = createLocalConsole({ brokerPort: 0, dataDir: path.join(dir.path, 'data') });
    await local.startBroker();
    log = new ActivityLog({ dataDir: path.join(dir.path, 'audit'), actor: 'console (test)' });
    pool = new AuditedManagerPool(local.connections, log);
  });

  afterAll(async () => {
    pool?.close();
    await local?.close();
    await dir?.remove();
  });

  it('records the origin, and a console clean-up of a gone realm as ok', async () => {
    const refusal = await pool
      .get(connectionId, 'console')
      .command({ command: 'remove_realm', realm: 'never-there' })
      .catch((e: unknown) => e);
    // The caller still learns the realm was not there.
    expect((refusal as SwitchboardError).code).toBe('SWB_ERR_NOT_FOUND');
    const [cleanup] = log.list({ limit: 1 });
    expect(cleanup).toMatchObject({
      origin: 'console',
      action: 'remove_realm',
      target: 'never-there',
      ok: true,
      error: null,
      note: 'already gone',
    });

    await expect(
      pool.get(connectionId).command({ command: 'remove_realm', realm: 'never-there' }),
    ).rejects.toBeInstanceOf(SwitchboardError);
    const [operator] = log.list({ limit: 1 });
    expect(operator).toMatchObject({ origin: 'operator', action: 'remove_realm', ok: false });
    expect(operator?.error).toContain('SWB_ERR_NOT_FOUND');
    expect(operator?.note).toBeUndefined();

    // Secrets stay out whatever the origin.
    await pool.get(connectionId, 'console').command({
      command: 'add_realm',
      realm: 'bg-realm',
      manager_key: 'super-secret-manager-key',
      ephemeral: true,
      ttl: '1h',
    });
    const [added] = log.list({ limit: 1 });
    expect(added).toMatchObject({ origin: 'console', ok: true });
    expect(added?.params).toMatchObject({ realm: 'bg-realm', manager_key: '<set>' });
    expect(JSON.stringify(log.list())).not.toContain('super-secret-manager-key');

    expect(log.list({ origins: ['operator'] }).every((e) => e.origin === 'operator')).toBe(true);
    expect(log.list({ origins: ['operator'] })).toHaveLength(1);
    expect(log.list({ origins: ['console'] })).toHaveLength(2);
    expect(log.list()).toHaveLength(3);
  });

  it("lists demo mode's commands as the console's own, never as failures", async () => {
    const started = await local.service.startDemo({ connectionId });
    expect(started.running).toBe(true);
    await local.service.stopDemo({ connectionId });
    const operator = await local.service.listActivity({ connectionId, origins: ['operator'] });
    expect(operator.entries.map((e) => e.target)).not.toContain('switchboard-demo');
    const all = await local.service.listActivity({ connectionId });
    const demo = all.entries.filter((e) => e.target === 'switchboard-demo');
    expect(demo.map((e) => e.action).sort()).toEqual(['add_realm', 'remove_realm']);
    expect(demo.every((e) => e.origin === 'console' && e.ok)).toBe(true);
  }, 60_000);
});

describe('ActivityLog entries from before the origin field', () => {
  it('reads them as the operator’s', async () => {
    const dir = await makeTempDir();
    try {
      mkdirSync(dir.path, { recursive: true });
      const old = {
        seq: 7,
        at: 1_700_000_000_000,
        actor: 'console (alice)',
        connectionId: 'local',
        action: 'set_realm_auth',
        target: 'old',
        params: { realm: 'old', required: true },
        ok: true,
        error: null,
        durationMs: 3,
      };
      appendFileSync(path.join(dir.path, 'console-activity.jsonl'), `${JSON.stringify(old)}\n`);
      const log = new ActivityLog({ dataDir: dir.path, actor: 'x' });
      expect(log.list()).toEqual([{ ...old, origin: 'operator' }]);
      expect(log.list({ origins: ['operator'] })).toHaveLength(1);
      expect(log.list({ origins: ['console'] })).toHaveLength(0);
      const next = log.record({
        at: 1,
        origin: 'console',
        connectionId: 'local',
        action: 'remove_realm',
        target: 'z',
        params: {},
        ok: true,
        error: null,
        durationMs: 0,
      });
      expect(next.seq).toBe(8);
    } finally {
      await dir.remove();
    }
  });
});
