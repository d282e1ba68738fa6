/**
 * The README's first client example runs as written (issue 7 items 6 and 11): copied into a
 * directory outside the repository (where `npm install socket.io-client` would have put the
 * client; here a link to this project's copy), it talks to a real broker and exits 0, and with
 * no broker it reports the connection failure and exits 1 instead of waiting forever.
 */
import { spawn } from 'node:child_process';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const REPO = path.resolve(import.meta.dirname, '..', '..');

/** The first ```js block of the README's "Talking to the broker" section. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(path.join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Talking to the broker'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('README has no js example under "Talking to the broker"');
  return match[1];
}

function runExample(dir: string, url: string) {
  const child = spawn(process.execPath, ['example.mjs'], {
    cwd: dir,
    env: { ...process.env, BROKER_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('README client example', () => {
  let outside: TempDir;
  let data: TempDir;
  let broker: BrokerProcess | null = null;

  beforeEach(async () => {
    outside = await makeTempDir('swb-example-');
    data = await makeTempDir();
    await writeFile(path.join(outside.path, 'example.mjs'), await readmeExample());
    await symlink(path.join(REPO, 'node_modules'), path.join(outside.path, 'node_modules'), 'dir');
    expect(path.relative(REPO, outside.path).startsWith('..')).toBe(true);
  });

  afterEach(async () => {
    await broker?.stop();
    broker = null;
    await outside.remove();
    await data.remove();
  });

  it('delivers, confirms and acknowledges a durable message, then exits 0', async () => {
    broker = await startBrokerProcess(['--port', '0', '--data-dir', data.path], 90_000);
    const result = await runExample(outside.path, broker.url);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/delivered: \{[\s\S]*message: \{ cmd: 'restart' \}/);
    expect(result.stdout).toMatch(/confirmed: \{ ok: true, msgIds: \[/);
    expect(result.stdout).toContain('acknowledged');
  }, 180_000);

  it('reports a broker that refuses it (auth on) and exits 1 at once', async () => {
    broker = await startBrokerProcess(['--port', '0', '--data-dir', data.path], 90_000, {
      TYO_MQ_AUTH_ENABLED: 'true',
      TYO_MQ_ENV_FILE: path.join(data.path, 'admin.env'),
    });
    const result = await runExample(outside.path, broker.url);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('example: broker refused: {"code":401');
    // Refused, not left to the example's 10 s give-up timer.
    expect(result.stderr).not.toContain('no answer');
  }, 180_000);

  it('reports a missing broker and exits 1', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const url = `http://127.0.0.1:${port}`;
    const result = await runExample(outside.path, url);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`example: cannot connect to ${url}`);
  }, 180_000);
});
