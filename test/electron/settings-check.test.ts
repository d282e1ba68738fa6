/** The settings editor's check: the broker's own schemas, each problem with its path. */
import { describe, expect, it } from 'vitest';
import { checkSettingsText, lineColumn } from '../../electron/services/settings-check';

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
    expect(check).toEqual({ valid: true, issues: [], restartKeys: ['ping_interval'] });
  });

  it('computes 1-based positions', () => {
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn('x', 0)).toEqual({ line: 1, column: 1 });
  });
});
