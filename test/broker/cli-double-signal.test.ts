/**
 * One Ctrl-C under `npm run broker` reaches the broker twice (from the terminal and forwarded
 * by npm): that is a clean stop, not "asked to stop again: exiting now" (newcomer trial). A
 * second signal a second or more later still means "exit now".
 */
import { brokerCliArgv } from '../helpers/broker-cli';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../support/temp-dir';

let dir: TempDir;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-double-signal-');
});
afterAll(async () => {
  await dir.remove();
});

/** Runs the CLI until listening, sends SIGINT at each delay (ms), resolves with its stdout. */
function runAndSignal(delays: number[]): Promise<{ code: number | null; out: string }> {
  const [node, argv] = brokerCliArgv(['--port', '0', '--data-dir', dir.path]);
  const child = spawn(node, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SWB_LOG_LEVEL: 'info' },
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no clean exit: ${out.slice(-500)}`));
    }, 30_000);
    let signalled = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!signalled && out.includes('broker listening')) {
        signalled = true;
        for (const ms of delays) setTimeout(() => child.kill('SIGINT'), ms);
      }
    });
    child.stderr.resume();
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('npm run broker and Ctrl-C', () => {
  it('takes a SIGINT delivered twice within a moment as one clean stop', async () => {
    const { code, out } = await runAndSignal([0, 3]);
    expect(code).toBe(0);
    expect(out).toContain('stopping broker');
    expect(out).not.toContain('asked to stop again');
  }, 40_000);
});
