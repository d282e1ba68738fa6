/**
 * The broker's `TYO_MQ_*` environment variables and the `--auth-store` flag
 * (`spec/protocol-admin.md` §13), turned into a settings override layer (see
 * `settings-layers.ts`). Names match tyo-mq so deployments move over unchanged.
 *
 * | Variable | Effect |
 * |---|---|
 * | `TYO_MQ_ENV_FILE` | env file loaded at launch (default `.env`), never overriding set vars |
 * | `TYO_MQ_AUTH_ENABLED` | `"true"` ⇒ `auth.enabled: true` |
 * | `TYO_MQ_AUTO_ADMIN_TOKEN` | `"false"` ⇒ `auth.auto_admin_token: false` |
 * | `TYO_MQ_SETTINGS_FILE` | settings file to load, watch and persist (after `--settings`) |
 * | `TYO_MQ_AUTH_STORE` | `true` (default file name), a path, or `false` (after `--auth-store`) |
 * | `TYO_MQ_MAX_HTTP_BUFFER_SIZE` | positive integer ⇒ `max_http_buffer_size` (bytes) |
 * | `TYO_MQ_PORT` | listen port when `--port` is absent (§13 note) |
 */
import { Protocol } from '../../shared/protocol-events';

/** Default env file (§5). */
export const DEFAULT_ENV_FILE = '.env';

/** What `TYO_MQ_AUTH_STORE` / `--auth-store` ask for: on with the default file, a path, or off. */
export type AuthStoreChoice = boolean | string;

/** Parses `true`/`false`/a path; empty or unset → undefined. */
export function parseAuthStoreValue(value: string | undefined): AuthStoreChoice | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^(true|1|yes|on)$/i.test(v)) return true;
  if (/^(false|0|no|off)$/i.test(v)) return false;
  return v;
}

/** The env file the launcher loads first: `TYO_MQ_ENV_FILE`, else `.env`. */
export function envFilePath(env: NodeJS.ProcessEnv): string {
  return env.TYO_MQ_ENV_FILE || DEFAULT_ENV_FILE;
}

/** The settings file: `--settings`, else `TYO_MQ_SETTINGS_FILE`, else none. */
export function settingsFilePath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  return flag || env.TYO_MQ_SETTINGS_FILE || undefined;
}

/**
 * The listen port: `--port`, else `TYO_MQ_PORT`, else 17352.
 * @returns the port, or an error text for an invalid value.
 */
export function resolvePort(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): { port: number } | { error: string } {
  const text = flag ?? (env.TYO_MQ_PORT || String(Protocol.DEFAULT_PORT));
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return { error: `Invalid port: ${text}` };
  return { port };
}

/**
 * The settings override layer from the environment and the `--auth-store` flag (which beats
 * `TYO_MQ_AUTH_STORE`). Unset variables add nothing.
 */
export function envSettingsOverrides(
  env: NodeJS.ProcessEnv,
  authStoreFlag?: AuthStoreChoice,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const auth: Record<string, unknown> = {};
  if (env.TYO_MQ_AUTH_ENABLED === 'true') auth.enabled = true;
  if (env.TYO_MQ_AUTO_ADMIN_TOKEN === 'false') auth.auto_admin_token = false;
  if (Object.keys(auth).length > 0) out.auth = auth;
  const store = authStoreFlag ?? parseAuthStoreValue(env.TYO_MQ_AUTH_STORE);
  if (store !== undefined) out.auth_store = store;
  const buffer = Number(env.TYO_MQ_MAX_HTTP_BUFFER_SIZE);
  if (Number.isInteger(buffer) && buffer > 0) out.max_http_buffer_size = buffer;
  return out;
}

/**
 * Lets `--auth-store` appear without a value (`--auth-store` alone or before another flag):
 * rewrites it to `--auth-store=true` so `util.parseArgs` accepts it as a string option.
 */
export function normalizeAuthStoreArg(argv: readonly string[]): string[] {
  return argv.map((arg, i) => {
    if (arg !== '--auth-store') return arg;
    const next = argv[i + 1];
    return next === undefined || next.startsWith('-') ? '--auth-store=true' : arg;
  });
}
