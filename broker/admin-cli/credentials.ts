/**
 * Where `switchboard-admin` finds its endpoint and its secret. Secrets come from the
 * environment, an env file or the console's secret store — never from the command line, where
 * they would land in shell history and `ps` output (`docs/management.md`, "switchboard-admin").
 *
 * Every credential carries a description of where it came from (never the secret), so that a
 * refusal can say which token was tried against which broker (issue 22 item 4: a stray `.env`
 * written by `npm run broker` was silently used against the console's broker).
 *
 * Like the broker, the CLI reads `<NAME>_FILE` for its two secrets (docs/configuration.md,
 * "Secrets from files"): a container or unit that gives the broker `TYO_MQ_ADMIN_TOKEN_FILE`
 * has no `TYO_MQ_ADMIN_TOKEN`, and `docker exec … switchboard-admin stats` inherits only the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnvFile } from '../files/env-file';
import { consoleAdminToken } from './console-secret';

/** Variables read (the same names as the reference tooling). */
export const EnvVar = {
  ADMIN_TOKEN: 'TYO_MQ_ADMIN_TOKEN',
  REALM_MANAGER_KEY: 'TYO_MQ_REALM_MANAGER_KEY',
  ENV_FILE: 'TYO_MQ_ENV_FILE',
  HOST: 'TYO_MQ_HOST',
  PORT: 'TYO_MQ_PORT',
  PROTOCOL: 'TYO_MQ_PROTOCOL',
} as const;

/** Suffix of the variable naming a file that holds a secret (`TYO_MQ_ADMIN_TOKEN_FILE`). */
const FILE_SUFFIX = '_FILE';

/** A `<NAME>_FILE` that cannot be used: both it and `<NAME>` set, or the file unreadable or empty. */
export class CredentialFileError extends Error {}

/** The signing secret: the global admin token, or one realm's manager key. */
export type Credential = { kind: 'admin'; secret: string } | { kind: 'realm'; secret: string };

/** The environment the CLI runs with: the process's, with the env file's variables under it. */
export interface LoadedEnv {
  env: NodeJS.ProcessEnv;
  /** Absolute path of the env file read, or null when none was. */
  file: string | null;
  /** Names whose value came from that file (not set in the process environment). */
  fromFile: ReadonlySet<string>;
}

/**
 * The environment with an env file merged under it (variables already set win).
 * The file is `explicit`, else `TYO_MQ_ENV_FILE`, else `.env` when it exists.
 * @throws Error when an explicitly named file cannot be read.
 */
export function loadEnv(env: NodeJS.ProcessEnv, explicit?: string): LoadedEnv {
  const file = explicit ?? env[EnvVar.ENV_FILE] ?? '.env';
  if (!explicit && !existsSync(file)) return { env, file: null, fromFile: new Set() };
  const vars = parseEnvFile(readFileSync(file, 'utf8'));
  const fromFile = new Set(Object.keys(vars).filter((k) => env[k] === undefined));
  return { env: { ...vars, ...env }, file: path.resolve(file), fromFile };
}

/** A credential (or none) and, for messages, where it came from or where none was found. */
export interface CredentialChoice {
  credential: Credential | null;
  /** E.g. `TYO_MQ_ADMIN_TOKEN from env file /srv/app/.env`; no secret. */
  source: string;
}

/**
 * `name`'s value and where it came from: the variable itself (environment or env file), or the
 * file `<name>_FILE` names (one trailing newline stripped, as the broker reads it).
 * @returns null when neither is set.
 * @throws CredentialFileError when both are set, or the file cannot be read or is empty.
 */
function secretOf(loaded: LoadedEnv, name: string): { secret: string; source: string } | null {
  const fileVar = `${name}${FILE_SUFFIX}`;
  const file = loaded.env[fileVar];
  const value = loaded.env[name];
  if (file) {
    if (value) throw new CredentialFileError(`${name} and ${fileVar} are both set: use one`);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new CredentialFileError(`${fileVar}: cannot read ${file} (${code})`);
    }
    const secret = text.replace(/\r?\n$/, '');
    if (!secret) throw new CredentialFileError(`${fileVar}: ${file} is empty`);
    const where = loaded.fromFile.has(fileVar) ? ` (from env file ${loaded.file})` : '';
    return { secret, source: `${name} from ${fileVar}=${file}${where}` };
  }
  if (!value) return null;
  const source = loaded.fromFile.has(name)
    ? `${name} from env file ${loaded.file}`
    : `${name} from the environment`;
  return { secret: value, source };
}

/**
 * The realm manager key when set (then commands are realm-scoped), else the admin token; each
 * from its variable or its `_FILE` companion.
 * @throws CredentialFileError when a `_FILE` variable cannot be used.
 */
export function credentialFrom(loaded: LoadedEnv): CredentialChoice {
  const realmKey = secretOf(loaded, EnvVar.REALM_MANAGER_KEY);
  if (realmKey) {
    return { credential: { kind: 'realm', secret: realmKey.secret }, source: realmKey.source };
  }
  const admin = secretOf(loaded, EnvVar.ADMIN_TOKEN);
  if (admin) return { credential: { kind: 'admin', secret: admin.secret }, source: admin.source };
  return {
    credential: null,
    source: `neither ${EnvVar.REALM_MANAGER_KEY} nor ${EnvVar.ADMIN_TOKEN} (nor their ${FILE_SUFFIX} variables) in the environment${loaded.file ? ` or env file ${loaded.file}` : ' (no env file: none given, no ./.env)'}`,
  };
}

/**
 * The admin token of the console whose data directory is `dataDir` (`--console-data-dir`).
 * @throws ConsoleSecretError when that console's store has none the CLI can read.
 */
export function consoleCredential(dataDir: string): CredentialChoice {
  const { token, file } = consoleAdminToken(dataDir);
  return {
    credential: { kind: 'admin', secret: token },
    source: `the local broker's admin token from the console's secret store ${file}`,
  };
}

/** The broker URL: `--url`, else TYO_MQ_PROTOCOL://TYO_MQ_HOST:TYO_MQ_PORT (http, 127.0.0.1, 17352). */
export function brokerUrl(env: NodeJS.ProcessEnv, url?: string): string {
  if (url) return url;
  const protocol = (env[EnvVar.PROTOCOL] ?? 'http').replace(/:?\/*$/, '');
  return `${protocol}://${env[EnvVar.HOST] ?? '127.0.0.1'}:${env[EnvVar.PORT] ?? '17352'}`;
}
