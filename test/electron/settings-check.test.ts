/** The settings editor's check: the broker's own schemas, each problem with its path. */
import { describe, expect, it } from 'vitest';
import { createBroker } from '../../broker/index';
import { checkSettingsText, lineColumn } from '../../electron/services/settings-check';
import { captureLogs } from '../support/log-capture';

describe('checkSettingsText', () => {
  it('names every invalid key by its path, auth included', () => {
    const check = checkSettingsText(
      JSON.stringify({
        storage_options: { synchronus: 'FULL' },
        ack_timeout: '30 seconds',
        auth: { realms: { ops: { required: 'yes' } } },
      }),
      null,
    );
    expect(check.valid).toBe(false);
    expect(check.issues.map((i) => i.path).sort()).toEqual([
      'ack_timeout',
      'auth.realms.ops.required',
      'storage_options',
    ]);
    expect(check.issues.find((i) => i.path === 'storage_options')?.message).toContain('synchronus');
  });

  it('reports JSON syntax errors with a line and column, without quoting the text', () => {
    const check = checkSettingsText('{\n  "jwt_secret": "s3cret-value",\n  oops\n}', null);
    expect(check.issues).toHaveLength(1);
    expect(check.issues[0]).toMatchObject({ path: '(root)', line: 3, column: 3 });
    expect(check.issues[0]?.message).not.toContain('s3cret');
    expect(checkSettingsText('[1]', null).issues[0]?.message).toMatch(/one JSON object/);
  });

  it('accepts aliases and lists the changed start-up keys', () => {
    const check = checkSettingsText(
      JSON.stringify({ storage: 'sqlite', httpApi: { enabled: true }, ping_interval: 3000 }),
      JSON.stringify({ storage: 'sqlite', http_api: { enabled: true } }),
    );
    expect(check).toEqual({
      valid: true,
      issues: [],
      warnings: [],
      restartKeys: ['ping_interval'],
    });
  });

  it('warns, with their paths, about exactly the keys the broker accepts but ignores', async () => {
    const settings = {
      limits: { enabled: true, max_connections: 100, max_queue_depth: 10 },
      http_publish: { enabled: true },
    };
    const check = checkSettingsText(JSON.stringify(settings), null);
    expect(check.valid).toBe(true);
    // `http_publish` is implemented now (issue 28): only the limits keys are left.
    expect(check.warnings.map((w) => w.path)).toEqual([
      'limits.max_connections',
      'limits.max_queue_depth',
    ]);
    expect(check.warnings[0]?.message).toContain('accepted but not implemented');
    // The broker logs the very same keys when it starts with that file.
    const log = captureLogs('warn');
    const broker = createBroker({ ...settings, storage: 'memory' }, { logger: log.logger });
    try {
      const logged = log.lines
        .filter((l) => l.msg?.includes('accepted but not implemented'))
        .map((l) => l.key);
      expect(logged.sort()).toEqual(check.warnings.map((w) => w.path).sort());
    } finally {
      await broker.close();
    }
    // Still named while another key makes the text invalid; none for valid keys only.
    const broken = checkSettingsText(
      JSON.stringify({ ack_timeout: 'x', limits: { max_connections: 1 } }),
      null,
    );
    expect(broken.valid).toBe(false);
    expect(broken.warnings.map((w) => w.path)).toEqual(['limits.max_connections']);
    expect(checkSettingsText('{"limits": {"enabled": true}}', null).warnings).toEqual([]);
    expect(checkSettingsText('{"limits": "x"}', null).warnings).toEqual([]);
  });

  it('computes 1-based positions', () => {
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn('x', 0)).toEqual({ line: 1, column: 1 });
  });
});
