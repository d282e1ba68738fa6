/**
 * Readers for the deployment files of deploy/ (docs/deployment.md), shared by the tests of
 * test/deploy/: a Dockerfile parser (instructions grouped by stage), a `.dockerignore` matcher,
 * a systemd unit parser, the set of environment variables the broker reads, and a run of the
 * real CLI's `--check-config` with a given environment.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envMappings, LEGACY_ENV_NAMES } from '../../broker/config/env-mapping';
import { brokerCliArgv } from '../helpers/broker-cli';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function readRepoFile(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Every variable the broker reads as a setting, and each one's `_FILE` companion. */
export function knownEnvNames(): Set<string> {
  const names = new Set<string>([...envMappings().map((m) => m.name), ...LEGACY_ENV_NAMES]);
  for (const name of [...names]) if (!name.endsWith('_FILE')) names.add(`${name}_FILE`);
  return names;
}

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  /** `FROM <image>` with global `ARG` defaults substituted. */
  image: string;
  name: string | null;
  instructions: Instruction[];
}

/** Parses a Dockerfile: continuation lines joined, comments dropped, instructions by stage. */
export function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    const line = raw.trimEnd();
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full !== '') lines.push(full);
  }
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [, image = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest) ?? [];
      const resolved = image.replace(/\$\{(\w+)\}/g, (_m, v: string) => args.get(v) ?? '');
      stages.push({ image: resolved, name: name ?? null, instructions: [] });
    } else if (stages.length === 0 && upper === 'ARG') {
      const [name = '', value = ''] = rest.split('=');
      args.set(name, value);
    } else {
      stages[stages.length - 1]?.instructions.push({ keyword: upper, args: rest });
    }
  }
  return { args, stages };
}

/** Instructions of `stage` with this keyword. */
export function instructions(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}

/** A `.dockerignore` pattern as a regular expression over slash-separated paths. */
function patternRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (pattern.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A pattern that names a directory excludes (or re-includes) everything under it.
  return new RegExp(`^${re}(?:/.*)?$`);
}

/**
 * Whether `path` (relative to the build context) is sent to the builder under these
 * `.dockerignore` rules: the last matching pattern decides, `!` re-includes (Docker's rules).
 */
export function inBuildContext(dockerignore: string, path: string): boolean {
  let included = true;
  for (const raw of dockerignore.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    if (patternRegExp(negated ? line.slice(1) : line).test(path)) included = negated;
  }
  return included;
}

/** `[section, key, value]` of every assignment in a systemd unit (comments dropped). */
export function parseUnit(text: string): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!;
    else {
      const eq = line.indexOf('=');
      out.push([section, line.slice(0, eq), line.slice(eq + 1)]);
    }
  }
  return out;
}

/**
 * Runs the real CLI (`broker/cli.ts`, or the test run's bundle of it) with `--check-config` and only `env` (plus PATH): what
 * a container or a unit with that environment would be told at start.
 */
export function checkConfig(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const [node, argv] = brokerCliArgv(['--check-config', ...args]);
    execFile(
      node,
      argv,
      {
        cwd: ROOT,
        // No `.env` of the checkout: only what the caller gives.
        env: { PATH: process.env.PATH, TYO_MQ_ENV_FILE: join(tmpdir(), 'swb-no.env'), ...env },
      },
      (err, stdout, stderr) => {
        const code = err ? Number((err as { code?: unknown }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
