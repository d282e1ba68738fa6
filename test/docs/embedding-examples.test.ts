/**
 * docs/embedding.md's examples run as written (issue 14: "documented with runnable examples"):
 * every ```ts block marked `// example: <name>` is saved in a directory outside the repository
 * (with a link to this project's node_modules), its import of `./broker/index.ts` pointed at
 * this repository's file, and run with `node --import tsx`. Each must exit 0 with the output the
 * doc shows, so the doc cannot rot.
 */
import { spawn } from 'node:child_process';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const INDEX = path.join(REPO, 'broker', 'index.ts');

/** The doc's marked examples, by name. */
async function examples(): Promise<Map<string, string>> {
  const doc = await readFile(path.join(REPO, 'docs', 'embedding.md'), 'utf8');
  const found = new Map<string, string>();
  for (const match of doc.matchAll(/```ts\n(\/\/ example: ([\w-]+)\n[\s\S]*?)```/g)) {
    found.set(match[2]!, match[1]!);
  }
  return found;
}

function run(dir: string, file: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: dir,
    env: { ...process.env, SWB_LOG_LEVEL: 'silent', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise<{ code: number | null; lines: string[]; stderr: string }>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      // The broker logs JSON lines (pino) to stdout; the examples print plain text.
      const lines = stdout.split('\n').filter((l) => l !== '' && !l.startsWith('{'));
      resolve({ code, lines, stderr });
    }),
  );
}

describe('docs/embedding.md examples', () => {
  let outside: TempDir;
  let blocks: Map<string, string>;

  beforeAll(async () => {
    outside = await makeTempDir('swb-embed-example-');
    await symlink(path.join(REPO, 'node_modules'), path.join(outside.path, 'node_modules'), 'dir');
    blocks = await examples();
  });

  afterAll(async () => {
    await outside.remove();
  });

  async function runExample(name: string) {
    const code = blocks.get(name);
    if (!code) throw new Error(`docs/embedding.md has no "// example: ${name}" block`);
    expect(code).toContain("from './broker/index.ts'");
    const file = `${name}.mts`;
    await writeFile(
      path.join(outside.path, file),
      code.replaceAll("'./broker/index.ts'", JSON.stringify(INDEX)),
    );
    return run(outside.path, file);
  }

  it('has the three examples', () => {
    expect([...blocks.keys()]).toEqual(['publish-subscribe', 'hooks', 'events']);
  });

  it('publish-subscribe', async () => {
    const result = await runExample('publish-subscribe');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.lines).toEqual([
      'seen sensors/kitchen/temp {"c":21.5} via mqtt',
      'display got alerts/fire {"level":3}',
    ]);
  }, 90_000);

  it('hooks', async () => {
    const result = await runExample('hooks');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.lines.slice(0, 5)).toEqual([
      'refused with CONNACK 5',
      'granted 1',
      'socket.io admitted: {"realm":"default","role":"both"}',
      'refused: {"ok":false,"code":403,"message":"admin topics are read-only"}',
      'audit chat/general from socket.io',
    ]);
    expect(result.lines[5]).toMatch(/^listener heard \{"by":"[\w-]+","body":"hello"\}$/);
    expect(result.lines).toHaveLength(6);
  }, 90_000);

  it('events', async () => {
    const result = await runExample('events');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.lines.slice(0, 4)).toEqual([
      'client mqtt default',
      'subscribe jobs/# by mqtt',
      'client socket.io default',
      'publish jobs/1 by socket.io',
    ]);
    expect(result.lines.slice(4, 6).sort()).toEqual(['gone mqtt', 'gone socket.io']);
    expect(result.lines.slice(6)).toEqual(['closed']);
  }, 90_000);
});
