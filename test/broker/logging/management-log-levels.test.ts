/**
 * The local broker's log is not half the console's own polling (issue 22 item 14): successful
 * read-only management commands (`get`, `stats`, `dlq_list`) are logged at debug; commands that
 * change something, and every refusal, stay at info.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, type Harness } from '../../helpers/broker-harness';
import { captureLogs } from '../../support/log-capture';
import { ADMIN_TOKEN, adminSettings, manager } from '../admin/management-client';

const DEBUG = 20;
const INFO = 30;

describe('management command log levels', () => {
  let h: Harness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  it('logs polling reads at debug and changes and refusals at info', async () => {
    const log = captureLogs('debug');
    h = await startBroker(adminSettings({ storage: 'memory' }), { logger: log.logger });
    const m = await manager(h);
    for (const command of ['get', 'stats', 'dlq_list']) {
      expect((await m.run({ command })).ok).toBe(true);
    }
    expect((await m.run({ command: 'add_realm', realm: 'org:acme' })).ok).toBe(true);
    expect((await m.run({ command: 'dlq_list', limit: -1 })).ok).toBe(false);
    const lines = log.lines.filter((l) => l.msg === 'management command');
    const levels = Object.fromEntries(
      lines.map((l) => [`${String(l.command)}:${String(l.ok)}`, l.level]),
    );
    expect(levels).toEqual({
      'get:true': DEBUG,
      'stats:true': DEBUG,
      'dlq_list:true': DEBUG,
      'add_realm:true': INFO,
      'dlq_list:false': INFO,
    });
    expect(log.text()).not.toContain(ADMIN_TOKEN);
  });
});
