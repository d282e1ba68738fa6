/**
 * Storage faults seen from outside (issue: "bad input and faults"): a corrupt SQLite file
 * stops the broker at start-up with a message naming the file — it never starts empty.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerExitCode } from '../../../shared/broker-process';
import { runBrokerToExit, startBrokerProcess } from '../../helpers/broker-process';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('broker start-up with a damaged store', () => {
  it('refuses a corrupt SQLite file, naming it, with the configuration exit code', async () => {
    dir = mkdtempSync(join(tmpdir(), 'swb-corrupt-'));
    writeFileSync(join(dir, 'tyo-mq.sqlite'), Buffer.alloc(16_384, 0x42));
    const started = startBrokerProcess(['--port', '0', '--data-dir', dir]);
    await expect(started).rejects.toThrow(/SWB_ERR_VALIDATION: .*tyo-mq\.sqlite/);
  });

  it('exits with code 2 for it (a supervisor must not restart-loop)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'swb-corrupt-'));
    writeFileSync(join(dir, 'tyo-mq.sqlite'), Buffer.alloc(16_384, 0x42));
    const { code, stderr } = await runBrokerToExit(['--port', '0', '--data-dir', dir]);
    expect(code).toBe(BrokerExitCode.CONFIG);
    expect(stderr).toMatch(/Cannot open message store .*tyo-mq\.sqlite/);
  });
});
