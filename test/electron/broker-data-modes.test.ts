/**
 * The console's and the desktop app's broker data directory (issue 20 defect 5): the supervisor
 * creates it 0700, and the broker it starts restricts one an older version left 0755 (and says
 * so in the log the console keeps) and keeps its message store 0600.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerSupervisor } from '../../electron/services/broker-supervisor';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe.skipIf(process.platform === 'win32')('the supervised broker data directory', () => {
  let dir: TempDir;
  let supervisor: BrokerSupervisor | null = null;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await supervisor?.stop();
    supervisor = null;
    await dir.remove();
  });

  it('creates a new one 0700 with the message store 0600', async () => {
    const dataDir = path.join(dir.path, 'broker-data');
    supervisor = new BrokerSupervisor({ port: 0, dataDir });
    await supervisor.start();
    expect(mode(dataDir)).toBe('700');
    expect(mode(path.join(dataDir, 'tyo-mq.sqlite'))).toBe('600');
  });

  it('restricts an existing 0755 one, logging it', async () => {
    const dataDir = path.join(dir.path, 'broker-data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    supervisor = new BrokerSupervisor({ port: 0, dataDir });
    await supervisor.start();
    expect(mode(dataDir)).toBe('700');
    await expect
      .poll(() => supervisor?.logs().some((l) => l.line.includes('restricted to 0700')))
      .toBe(true);
  });
});
