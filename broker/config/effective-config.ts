/**
 * The effective configuration and where each value came from, for `--print-config` and
 * `--check-config` (docs/configuration.md, "Checking the configuration"). Composes the same
 * layers as the running broker (`composeLayers`, used by `settings-runtime.ts` too) without its
 * side effects: no settings file is created, no auth store opened, no admin token generated.
 */
import { readFileSync } from 'node:fs';
import { parseAuthConfig, describeAuthIssues } from '../auth/auth-schema';
import { publicAuth, redactUrlsDeep, REDACTED } from '../admin/public-settings';
import { applyLeaves, readEnvLayer, SECRET_ENV_NAMES, unknownEnvError } from './env-mapping';
import type { EnvLayer, EnvSource } from './env-mapping';
import { envSettingsOverrides } from '../files/env-settings';
import { parseSettings } from './load-settings';
import { normalizeSettingsAliases } from './normalize-aliases';
import { layerSettings } from './settings-layers';
import { parseSettingsText } from './settings-file';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Effective settings before validation: launcher defaults ⊕ file (one level deep), then each
 * `TYO_MQ_*` leaf set at its path, then the overrides (legacy variables, flags).
 */
export function composeLayers(
  base: Json,
  content: Json,
  leaves: EnvLayer['leaves'],
  overrides: Json,
): Json {
  return layerSettings(applyLeaves(layerSettings(base, content), leaves), overrides);
}

/** One value of the effective configuration. */
export interface ConfigEntry {
  /** Dotted settings path, or `--port`-style for values that are flags only. */
  readonly path: string;
  /** Redacted. */
  readonly value: unknown;
  /** `default`, `default (switchboard-broker)`, `settings file <path>`, `TYO_MQ_…`, `--flag`. */
  readonly source: string;
}

export interface EffectiveConfigInput {
  /** The launcher's defaults (under the file). */
  defaults: Json;
  /** Flag overrides, each with the flag that set it (`{'--storage': {storage: 'memory'}}`). */
  flagOverrides: ReadonlyArray<{ flag: string; layer: Json }>;
  settingsFile: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Variables read from `<NAME>_FILE` (`resolveFileVariables`). */
  fileSources?: ReadonlyMap<string, EnvSource>;
  /** Values outside the settings (port, host, data dir, log level) with their sources. */
  extra?: readonly ConfigEntry[];
}

export interface EffectiveConfig {
  readonly entries: readonly ConfigEntry[];
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

/** Which legacy variable sets which path (env-settings.ts). */
const LEGACY_PATHS: Record<string, string> = {
  'auth.enabled': 'TYO_MQ_AUTH_ENABLED',
  'auth.auto_admin_token': 'TYO_MQ_AUTO_ADMIN_TOKEN',
  auth_store: 'TYO_MQ_AUTH_STORE',
  max_http_buffer_size: 'TYO_MQ_MAX_HTTP_BUFFER_SIZE',
};

/** Whether `layer` sets `path` (or replaces a prefix of it with a non-object value). */
function sets(layer: Json, path: readonly string[]): boolean {
  let node: unknown = layer;
  for (let i = 0; i < path.length; i++) {
    if (!isObject(node)) return false;
    node = node[path[i]!];
    if (node === undefined) return false;
    if (i < path.length - 1 && !isObject(node)) return true;
  }
  return true;
}

function flatten(value: unknown, path: string[], out: Array<[string[], unknown]>): void {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, [...path, k], out);
  } else {
    out.push([path, value]);
  }
}

/** The effective settings, redacted: the auth block as §8.4 shows it, URL credentials hidden. */
function redacted(settings: Json): Json {
  const out = redactUrlsDeep({ ...settings, auth: undefined }) as Json;
  delete out.auth;
  const auth = parseAuthConfig(settings.auth ?? {});
  if (auth.success) out.auth = publicAuth(auth.data);
  return out;
}

/** Composes and validates; never throws for bad configuration (it is reported in `errors`). */
export function effectiveConfig(input: EffectiveConfigInput): EffectiveConfig {
  const errors: string[] = [];
  const warnings: string[] = [];
  const fileLabel = `settings file ${input.settingsFile ?? ''}`;
  let content: Json = {};
  if (input.settingsFile) {
    try {
      content = parseSettingsText(readFileSync(input.settingsFile, 'utf8'), input.settingsFile);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        warnings.push(`${input.settingsFile} does not exist yet: the broker will create it`);
      } else {
        errors.push((err as Error).message);
      }
    }
  }
  content = normalizeSettingsAliases(content) as Json;
  const envLayer: EnvLayer = readEnvLayer(input.env);
  const typo = unknownEnvError(envLayer);
  if (typo) errors.push(typo);
  for (const n of envLayer.unknown) {
    if (!n.includes('__')) warnings.push(`${n} is not a Switchboard variable (ignored)`);
  }
  const legacy = envSettingsOverrides(input.env);
  const flags = layerSettings(...input.flagOverrides.map((f) => f.layer));
  const composed = composeLayers(input.defaults, content, envLayer.leaves, {
    ...layerSettings(legacy, flags),
  });
  let settings: Json = composed;
  try {
    settings = { ...parseSettings(composed, input.env) };
  } catch (err) {
    errors.push((err as Error).message);
  }
  // Checked on its own (as AuthState does at start), so its errors show with the others.
  const auth = parseAuthConfig(composed.auth ?? {});
  if (!auth.success) {
    errors.push(`Invalid auth settings: ${describeAuthIssues(auth.error.issues)}`);
  }

  const via = (name: string) => input.fileSources?.get(name)?.via ?? name;
  // Redaction renames a secret (`key` → `key_configured`): its source is its parent's.
  const sourceOf = (path: string[]): string => {
    const last = path[path.length - 1] ?? '';
    return layerOf(/_configured$|^token_hash$/.test(last) ? path.slice(0, -1) : path);
  };
  const layerOf = (path: string[]): string => {
    for (let i = input.flagOverrides.length - 1; i >= 0; i--) {
      if (sets(input.flagOverrides[i]!.layer, path)) return input.flagOverrides[i]!.flag;
    }
    for (const [p, name] of Object.entries(LEGACY_PATHS)) {
      if (sets(legacy, path) && path.join('.').startsWith(p)) return via(name);
    }
    for (let i = envLayer.leaves.length - 1; i >= 0; i--) {
      const leaf = envLayer.leaves[i]!;
      if (sets(applyLeaves({}, [leaf]), path)) return via(leaf.name);
    }
    if (sets(content, path)) return fileLabel;
    if (sets(input.defaults, path)) return 'default (switchboard-broker)';
    return 'default';
  };
  const flat: Array<[string[], unknown]> = [];
  flatten(redacted(settings), [], flat);
  const entries: ConfigEntry[] = [...(input.extra ?? [])];
  for (const [path, value] of flat) {
    if (value === undefined) continue;
    entries.push({ path: path.join('.'), value, source: sourceOf(path) });
  }
  for (const name of SECRET_ENV_NAMES) {
    if (input.env[name]) entries.push({ path: name, value: REDACTED, source: via(name) });
  }
  return { entries, errors, warnings };
}

/** `path = value  # source` lines, aligned; secrets already redacted. */
export function formatConfig(config: EffectiveConfig): string {
  const rows = config.entries.map((e) => [`${e.path} = ${JSON.stringify(e.value)}`, e.source]);
  const width = Math.min(72, Math.max(0, ...rows.map(([left]) => left!.length)));
  return rows.map(([left, source]) => `${left!.padEnd(width)}  # ${source}`).join('\n') + '\n';
}
