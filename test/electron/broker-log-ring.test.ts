/**
 * The supervisor's log ring keeps at most 8 KiB of each broker output line and no reference to
 * the original text (issue 8 item 15: twenty 10 MiB lines used to retain 208 MiB).
 */
import { PassThrough } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerChild, BrokerExit } from '../../electron/services/broker-launcher';
import { BrokerSupervisor } from '../../electron/services/broker-supervisor';
import { CappedLineSplitter } from '../../electron/services/capped-lines';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A broker stand-in whose stdout the test writes; it reports ready at once. */
function fakeLauncher(stdout: PassThrough) {
  return (): BrokerChild => {
    const exitListeners: ((exit: BrokerExit) => void)[] = [];
    return {
      pid: 4242,
      stdout,
      stderr: null,
      onMessage: (listener) =>
        setImmediate(() =>
          listener({ type: 'broker-ready', port: 1, host: '127.0.0.1', pid: 4242, version: 't' }),
        ),
      onExit: (listener) => exitListeners.push(listener),
      kill: () => exitListeners.forEach((l) => l({ code: 0, signal: null })),
    };
  };
}

describe('broker log ring', () => {
  let supervisor: BrokerSupervisor | null = null;
  afterEach(async () => {
    await supervisor?.stop();
    supervisor = null;
  });

  it('caps each line while reading and retains none of the huge originals', async () => {
    const stdout = new PassThrough();
    supervisor = new BrokerSupervisor({
      port: 0,
      dataDir: '/nonexistent-unused',
      launcher: fakeLauncher(stdout),
    });
    await supervisor.start();
    gc();
    const before = process.memoryUsage().heapUsed;
    const huge = `{"level":30,"msg":"${'x'.repeat(10 * 1024 * 1024)}"}\n`;
    for (let i = 0; i < 20; i += 1) stdout.write(huge);
    await expect.poll(() => supervisor?.logs().length, { timeout: 20_000 }).toBe(20);
    gc();
    const retainedMiB = (process.memoryUsage().heapUsed - before) / (1024 * 1024);
    expect(retainedMiB).toBeLessThan(20);
    for (const { line } of supervisor.logs()) {
      expect(line.startsWith('{"level":30,"msg":"xxx')).toBe(true);
      expect(line.endsWith('…')).toBe(true);
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(8 * 1024 + 3);
    }
  }, 60_000);
});

describe('CappedLineSplitter', () => {
  function split(chunks: (string | Buffer)[], maxBytes: number): string[] {
    const lines: string[] = [];
    const splitter = new CappedLineSplitter({ maxBytes, onLine: (l) => lines.push(l) });
    chunks.forEach((c) => splitter.push(c));
    splitter.end();
    return lines;
  }

  it('splits on newlines across chunks, drops CR, emits a last unterminated line', () => {
    expect(split(['ab', 'c\r\nd', 'e\n\nf'], 100)).toEqual(['abc', 'de', '', 'f']);
  });

  it('cuts long lines, marks them, and never splits a UTF-8 character', () => {
    expect(split(['0123456789\nok\n'], 4)).toEqual(['0123…', 'ok']);
    // "é" is two bytes: a cut after its first byte drops it whole.
    expect(split(['aé€z\n'], 2)).toEqual(['a…']);
    expect(split(['aé€z\n'], 6)).toEqual(['aé€…']);
    expect(
      split([Buffer.from('€€\n').subarray(0, 2), Buffer.from('€€\n').subarray(2)], 100),
    ).toEqual(['€€']);
  });
});
