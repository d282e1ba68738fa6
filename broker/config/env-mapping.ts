/**
 * Every setting as an environment variable, derived from the settings schema so the mapping
 * cannot drift from it (docs/configuration.md, "Environment variables").
 *
 * Name: `TYO_MQ_` + the settings path in upper case, path segments joined by `__`
 * (`limits.max_queued_per_realm` → `TYO_MQ_LIMITS__MAX_QUEUED_PER_REALM`,
 * `ping_interval` → `TYO_MQ_PING_INTERVAL`). The `auth` block is mapped from its own schema
 * (`TYO_MQ_AUTH__JWT_SECRET`). Value: booleans `true|false|1|0|yes|no|on|off`; numbers as
 * written; strings and enums as written; anything else (lists, maps, unions) as JSON, else the
 * raw text. The legacy names (`TYO_MQ_MAX_HTTP_BUFFER_SIZE`, `TYO_MQ_AUTH_STORE`,
 * `TYO_MQ_AUTH_ENABLED`, …; `env-settings.ts`) keep their meaning and are not re-derived.
 *
 * `<NAME>_FILE` (for any mapped name, the admin token and the realm manager key) reads the
 * value from a file, trailing newline stripped, so container secrets work; setting both is an
 * error.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { SwitchboardError } from '../../shared/error-catalogue';
import { AuthConfigSchema } from '../auth/auth-schema';
import { SettingsSchema } from './settings-schema';

export const ENV_PREFIX = 'TYO_MQ_';

/** How a variable's text becomes a value. */
export type EnvValueKind = 'boolean' | 'number' | 'string' | 'json';

export interface EnvMapping {
  /** `TYO_MQ_LIMITS__MAX_QUEUED_PER_REALM`. */
  readonly name: string;
  /** `['limits', 'max_queued_per_realm']`. */
  readonly path: readonly string[];
  readonly kind: EnvValueKind;
}

/** Variables with their own meaning (env-settings.ts, admin CLI), not settings paths. */
export const LEGACY_ENV_NAMES = [
  'TYO_MQ_ENV_FILE',
  'TYO_MQ_SETTINGS_FILE',
  'TYO_MQ_PORT',
  'TYO_MQ_HOST',
  'TYO_MQ_PROTOCOL',
  'TYO_MQ_AUTH_ENABLED',
  'TYO_MQ_AUTO_ADMIN_TOKEN',
  'TYO_MQ_AUTH_STORE',
  'TYO_MQ_MAX_HTTP_BUFFER_SIZE',
  'TYO_MQ_ADMIN_TOKEN',
  'TYO_MQ_REALM_MANAGER_KEY',
  'TYO_MQ_LOG_FORMAT',
] as const;

/** Variables that hold secrets: their values are never printed. */
export const SECRET_ENV_NAMES = new Set(['TYO_MQ_ADMIN_TOKEN', 'TYO_MQ_REALM_MANAGER_KEY']);

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { def: Def }).def;

/** Strips defaults, optionals and transforms down to the schema that says what the value is. */
function core(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(s);
    if (def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
  return s;
}

function kindOf(schema: z.ZodType): EnvValueKind {
  switch (defOf(schema).type) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
    case 'enum':
      return 'string';
    default:
      return 'json';
  }
}

function walk(schema: z.ZodType, path: string[], out: EnvMapping[]): void {
  const s = core(schema);
  const def = defOf(s);
  if (def.type === 'object' && def.shape) {
    for (const [key, child] of Object.entries(def.shape)) {
      // `trustProxy` duplicates `trust_proxy` in the limits schema: one name per setting.
      if (/[A-Z]/.test(key)) continue;
      const childPath = [...path, key];
      if (childPath.length === 1 && key === 'auth') walk(AuthConfigSchema, childPath, out);
      else walk(child, childPath, out);
    }
    return;
  }
  const name = ENV_PREFIX + path.map((p) => p.toUpperCase()).join('__');
  if ((LEGACY_ENV_NAMES as readonly string[]).includes(name)) return;
  out.push({ name, path, kind: kindOf(s) });
}

let mappings: readonly EnvMapping[] | null = null;

/** The whole mapping, in schema order (computed once). */
export function envMappings(): readonly EnvMapping[] {
  if (!mappings) {
    const out: EnvMapping[] = [];
    walk(SettingsSchema, [], out);
    mappings = Object.freeze(out);
  }
  return mappings;
}

/** A variable the broker cannot use (`SWB_ERR_VALIDATION`); the message names it. */
export class EnvConfigError extends SwitchboardError {
  constructor(message: string) {
    super('SWB_ERR_VALIDATION', message);
  }
}

const TRUE = /^(true|1|yes|on)$/i;
const FALSE = /^(false|0|no|off)$/i;

/** Converts a variable's text per its kind. @throws EnvConfigError naming the variable. */
export function parseEnvValue(mapping: EnvMapping, text: string): unknown {
  const v = text.trim();
  switch (mapping.kind) {
    case 'boolean':
      if (TRUE.test(v)) return true;
      if (FALSE.test(v)) return false;
      throw new EnvConfigError(`${mapping.name}: "${v.slice(0, 40)}" is not true or false`);
    case 'number': {
      const n = Number(v);
      if (v === '' || !Number.isFinite(n)) {
        throw new EnvConfigError(`${mapping.name}: "${v.slice(0, 40)}" is not a number`);
      }
      return n;
    }
    case 'string':
      return text;
    default:
      try {
        return JSON.parse(v) as unknown;
      } catch {
        return text;
      }
  }
}

/** Names whose value may come from `<NAME>_FILE`. */
function fileableNames(): Set<string> {
  return new Set([...envMappings().map((m) => m.name), ...LEGACY_ENV_NAMES]);
}

/** Where a variable's value was read: the variable itself or its `_FILE` companion. */
export interface EnvSource {
  /** The variable named in provenance: `TYO_MQ_ADMIN_TOKEN_FILE=/run/secrets/admin`. */
  readonly via: string;
}

/**
 * Resolves `<NAME>_FILE` variables into `env` (in place) for every known name, so the rest of
 * the broker reads `<NAME>` as usual.
 * @returns name → how it was set (`NAME_FILE=<path>`), for provenance.
 * @throws EnvConfigError when both are set or the file cannot be read.
 */
export function resolveFileVariables(
  env: NodeJS.ProcessEnv,
  extraNames: readonly string[] = [],
): Map<string, EnvSource> {
  const sources = new Map<string, EnvSource>();
  const names = fileableNames();
  for (const n of extraNames) names.add(n);
  for (const name of names) {
    const fileVar = `${name}_FILE`;
    const path = env[fileVar];
    if (path === undefined || path === '' || names.has(fileVar)) continue;
    if (env[name] !== undefined && env[name] !== '') {
      throw new EnvConfigError(`${name} and ${fileVar} are both set: use one`);
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new EnvConfigError(`${fileVar}: cannot read ${path} (${code})`);
    }
    env[name] = text.replace(/\r?\n$/, '');
    sources.set(name, { via: `${fileVar}=${path}` });
  }
  return sources;
}

/** The settings layer of the derived variables, plus the path → variable name of each. */
export interface EnvLayer {
  readonly leaves: ReadonlyArray<{ path: readonly string[]; value: unknown; name: string }>;
  /** `TYO_MQ_*` names that match no setting; those with `__` are errors. */
  readonly unknown: readonly string[];
  /** Values of the wrong kind, each naming its variable. */
  readonly errors: readonly string[];
}

/** Reads every derived variable from `env`; bad values are collected in `errors`. */
export function readEnvLayer(env: NodeJS.ProcessEnv): EnvLayer {
  const leaves: Array<{ path: readonly string[]; value: unknown; name: string }> = [];
  const errors: string[] = [];
  const known = fileableNames();
  for (const mapping of envMappings()) {
    const text = env[mapping.name];
    if (text === undefined || text === '') continue;
    try {
      leaves.push({ path: mapping.path, value: parseEnvValue(mapping, text), name: mapping.name });
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  const unknown = Object.keys(env).filter(
    (n) => n.startsWith(ENV_PREFIX) && !known.has(n) && !known.has(n.replace(/_FILE$/, '')),
  );
  return { leaves, unknown, errors };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns a copy of `base` with each leaf set at its path (objects on the way cloned). */
export function applyLeaves(base: Json, leaves: EnvLayer['leaves']): Json {
  const out: Json = { ...base };
  for (const { path, value } of leaves) {
    let node = out;
    for (const key of path.slice(0, -1)) {
      const next = isObject(node[key]) ? { ...node[key] } : {};
      node[key] = next;
      node = next;
    }
    node[path[path.length - 1]!] = value;
  }
  return out;
}

/**
 * The layer's errors in one message (bad values, and variables that look like settings paths
 * — they contain `__` — but match none), or null.
 */
export function unknownEnvError(layer: EnvLayer): string | null {
  const typos = layer.unknown.filter((n) => n.includes('__'));
  if (typos.length === 0) return layer.errors.length > 0 ? layer.errors.join('; ') : null;
  return `${layer.errors.map((e) => `${e}; `).join('')}Unknown environment variable${typos.length > 1 ? 's' : ''} ${typos.join(', ')}: no such setting (docs/configuration.md, "Environment variables")`;
}
