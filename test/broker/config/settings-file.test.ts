import { fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { writeFileAtomic } from '../../../broker/config/atomic-write';
import { createSettingsRuntime } from '../../../broker/config/settings-runtime';
import {
  parseSettingsText,
  SettingsFile,
  WATCH_DEBOUNCE_MS,
} from '../../../broker/config/settings-file';
import { delay, waitUntil } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const CHILD = fileURLToPath(new URL('../../support/atomic-writer-child.ts', import.meta.url));
const mode = (p: string) => statSync(p).mode & 0o777;

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(() => tmp.remove());

describe('atomic settings writes (§12.4)', () => {
  it('writes pretty 2-space JSON with a trailing newline, mode 0600, parents created', async () => {
    const path = join(tmp.path, 'nested', 'dir', 'settings.json');
    const file = new SettingsFile(path);
    await file.write({ a: 1, auth: { realms: { x: {} } } });
    expect(readFileSync(path, 'utf8')).toBe(
      '{\n  "a": 1,\n  "auth": {\n    "realms": {\n      "x": {}\n    }\n  }\n}\n',
    );
    expect(mode(path)).toBe(0o600);
    // No temp file left behind.
    expect(readdirSync(join(tmp.path, 'nested', 'dir'))).toEqual(['settings.json']);
  });

  it('tightens an existing world-readable file to 0600 when replacing it', async () => {
    const path = join(tmp.path, 'settings.json');
    writeFileSync(path, '{}', { mode: 0o644 });
    await writeFileAtomic(path, '{"b":2}\n');
    expect(mode(path)).toBe(0o600);
  });

  it('serializes writes: the last call wins even when earlier ones are larger', async () => {
    const path = join(tmp.path, 'settings.json');
    const file = new SettingsFile(path);
    const big = { pad: 'x'.repeat(2_000_000), v: 1 };
    await Promise.all([file.write(big), file.write({ v: 2 }), file.write({ v: 3 })]);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ v: 3 });
  });

  it('never leaves a torn file when the writer is killed mid-write', async () => {
    const path = join(tmp.path, 'settings.json');
    for (let round = 0; round < 3; round++) {
      const child = fork(CHILD, [path], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      await new Promise<void>((resolve) => child.once('message', () => resolve()));
      // Let it get through some writes, then kill it wherever it is.
      await waitUntil(() => existsSync(path), 'the first write landed', 15_000);
      await delay(100 + round * 37);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      const content = JSON.parse(readFileSync(path, 'utf8')) as { version: number };
      expect([0, 1]).toContain(content.version);
      expect(mode(path)).toBe(0o600);
    }
    // The next start clears what the killed writers left behind.
    new SettingsFile(path).readOrCreateSync(() => ({}));
    expect(readdirSync(tmp.path)).toEqual(['settings.json']);
  }, 30_000);
});

describe('watching the settings file (§12.3)', () => {
  it('reports an outside edit once, debounced, and ignores its own writes', async () => {
    const path = join(tmp.path, 'settings.json');
    const file = new SettingsFile(path);
    file.readOrCreateSync(() => ({ v: 0 }));
    await file.write({ v: 0 });
    let edits = 0;
    file.watch(() => edits++);
    try {
      await file.write({ v: 1 });
      await file.write({ v: 2 });
      await delay(WATCH_DEBOUNCE_MS * 3);
      expect(edits).toBe(0);
      // An editor writing in several steps still yields one reload.
      await writeFile(path, '{"v":');
      await writeFile(path, '{"v": 3}\n');
      await waitUntil(() => edits === 1, 'the outside edit is reported');
      await delay(WATCH_DEBOUNCE_MS * 3);
      expect(edits).toBe(1);
      expect(await file.read()).toEqual({ v: 3 });
    } finally {
      await file.close();
    }
  });

  it('creates nothing on read when the file is missing: the seed is returned', () => {
    const file = new SettingsFile(join(tmp.path, 'missing.json'));
    expect(file.readOrCreateSync(() => ({ seeded: true }))).toEqual({
      content: { seeded: true },
      created: true,
    });
  });
});

describe('the seed of a new settings file', () => {
  it('writeSync: on disk when it returns, 0600, parents created, not reported as an edit', async () => {
    const path = join(tmp.path, 'deep', 'settings.json');
    const file = new SettingsFile(path);
    let edits = 0;
    file.watch(() => edits++);
    try {
      file.writeSync({ seeded: true });
      expect(readFileSync(path, 'utf8')).toBe('{\n  "seeded": true\n}\n');
      expect(mode(path)).toBe(0o600);
      expect(readdirSync(join(tmp.path, 'deep'))).toEqual(['settings.json']);
      writeFileSync(path, '{"operator": 1}\n');
      await waitUntil(() => edits === 1, 'the operator edit is reported');
    } finally {
      await file.close();
    }
  });

  it('createSettingsRuntime returns with the seed on disk, so a first edit is never overwritten', async () => {
    for (const input of [{}, { auth_store: join(tmp.path, 'auth.sqlite') }]) {
      const path = join(tmp.path, `settings-${Object.keys(input).length}.json`);
      const runtime = createSettingsRuntime({
        input,
        env: {},
        logger: pino({ level: 'silent' }),
        dataDir: tmp.path,
        settingsFile: path,
        watch: false,
      });
      try {
        // No await between the return and the edit: nothing may still be in flight.
        const seeded = JSON.parse(readFileSync(path, 'utf8')) as { auth: object };
        expect(seeded.auth).toBeDefined();
        writeFileSync(path, '{"operator": 1}\n');
        await runtime.flush();
        expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ operator: 1 });
      } finally {
        await runtime.close();
      }
    }
  });
});

describe('settings-file parse errors', () => {
  it('name the file but never quote its text (it may hold secrets)', () => {
    let message = '';
    try {
      parseSettingsText('{ secret-xyz', '/etc/s.json');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Settings file \/etc\/s\.json is not valid JSON/);
    expect(message).not.toContain('secret-xyz');
    expect(() => parseSettingsText('[1]', 'f.json')).toThrow(/must hold a JSON object/);
  });
});
