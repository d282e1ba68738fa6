/**
 * Where `switchboard-admin` finds its endpoint and its secret. Secrets come from the
 * environment or an env file — never from the command line, where they would land in shell
 * history and `ps` output (`spec/protocol-admin.md` §17.2–§17.3).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseEnvFile } from '../config/env-file';

/** Variables read (the same names as the reference tooling, §13). */
export const EnvVar = {
  ADMIN_TOKEN: 'TYO_MQ_ADMIN_TOKEN',
  REALM_MANAGER_KEY: 'TYO_MQ_REALM_MANAGER_KEY',
  ENV_FILE: 'TYO_MQ_ENV_FILE',
  HOST: 'TYO_MQ_HOST',
  PORT: 'TYO_MQ_PORT',
  PROTOCOL: 'TYO_MQ_PROTOCOL',
} as const;

/** The signing secret: the global admin token, or one realm's manager key. */
export type Credential = { kind: 'admin'; secret: string } | { kind: 'realm'; secret: string };

/**
 * The environment with an env file merged under it (variables already set win, §5 step 3).
 * The file is `explicit`, else `TYO_MQ_ENV_FILE`, else `.env` when it exists.
 * @throws Error when an explicitly named file cannot be read.
 */
export function loadEnv(env: NodeJS.ProcessEnv, explicit?: string): NodeJS.ProcessEnv {
  const path = explicit ?? env[EnvVar.ENV_FILE] ?? '.env';
  if (!explicit && !existsSync(path)) return env;
  const fromFile = parseEnvFile(readFileSync(path, 'utf8'));
  return { ...fromFile, ...env };
}

/** The realm manager key when set (then commands are realm-scoped), else the admin token. */
export function credentialFrom(env: NodeJS.ProcessEnv): Credential | null {
  const realmKey = env[EnvVar.REALM_MANAGER_KEY];
  if (realmKey) return { kind: 'realm', secret: realmKey };
  const admin = env[EnvVar.ADMIN_TOKEN];
  return admin ? { kind: 'admin', secret: admin } : null;
}

/** The broker URL: `--url`, else TYO_MQ_PROTOCOL://TYO_MQ_HOST:TYO_MQ_PORT (http, 127.0.0.1, 17352). */
export function brokerUrl(env: NodeJS.ProcessEnv, url?: string): string {
  if (url) return url;
  const protocol = (env[EnvVar.PROTOCOL] ?? 'http').replace(/:?\/*$/, '');
  return `${protocol}://${env[EnvVar.HOST] ?? '127.0.0.1'}:${env[EnvVar.PORT] ?? '17352'}`;
}
