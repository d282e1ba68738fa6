/**
 * `switchboard-admin --console-data-dir <dir>` (or `--console`): the admin token of the console's
 * local broker, read from the console's own secret store so that nobody copies it by hand.
 * The token is only ever used to sign; it is not printed, logged or put in an error message.
 *
 * The browser console (`npm run console`) keeps it in `<data-dir>/console-secrets.json`
 * (mode 0600). The desktop app keeps it encrypted by the OS keychain, which only the app can
 * decrypt: that case is named, not guessed at. Source: issue 22 item 4, docs/console.md.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CONSOLE_BROKER_ENDPOINT_FILE,
  CONSOLE_DATA_DIR_ENV,
  CONSOLE_DATA_DIR_UNDER_HOME,
  CONSOLE_SAFE_SECRETS_FILE,
  CONSOLE_SECRETS_FILE,
  ConsoleBrokerEndpointSchema,
  ConsoleSecretsFileSchema,
  LOCAL_ADMIN_TOKEN_KEY,
} from '../../shared/console-secrets-file';

/** The console's secret store cannot give a token (exit code 4); the message says why. */
export class ConsoleSecretError extends Error {}

/** `npm run console`'s data directory: `$SWITCHBOARD_DATA_DIR`, else `~/.switchboard/data`. */
export function defaultConsoleDataDir(env: NodeJS.ProcessEnv): string {
  return env[CONSOLE_DATA_DIR_ENV] || path.join(os.homedir(), ...CONSOLE_DATA_DIR_UNDER_HOME);
}

const exists = (file: string): boolean => {
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
};

/**
 * The local broker's admin token kept by the console whose data directory is `dataDir`, and
 * the file it came from.
 * @throws ConsoleSecretError when the directory holds no readable console secrets file, the file
 *   is not one, it has no admin token, or the token is in the desktop app's keychain store.
 */
export function consoleAdminToken(dataDir: string): { token: string; file: string } {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, CONSOLE_SECRETS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // The desktop app: ciphertexts beside (or one level above) its broker data directory.
    const keychain = [dir, path.dirname(dir)]
      .map((d) => path.join(d, CONSOLE_SAFE_SECRETS_FILE))
      .find(exists);
    if (keychain) {
      throw new ConsoleSecretError(
        `${keychain} is the desktop app's store, encrypted by the OS keychain: only the app can read it. Use an env file with TYO_MQ_ADMIN_TOKEN instead (docs/management.md)`,
      );
    }
    if (code === 'ENOENT') {
      throw new ConsoleSecretError(
        `no console secrets in ${dir} (${CONSOLE_SECRETS_FILE} not found): is it the data directory of npm run console (its --data-dir)?`,
      );
    }
    throw new ConsoleSecretError(`cannot read ${file}: ${code ?? (err as Error).message}`);
  }
  let parsed;
  try {
    parsed = ConsoleSecretsFileSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) throw new ConsoleSecretError(`${file} is not a console secrets file`);
  const token = parsed.data.secrets[LOCAL_ADMIN_TOKEN_KEY];
  if (!token) throw new ConsoleSecretError(`${file} holds no admin token for the local broker`);
  return { token, file };
}

/**
 * The URL of the console's local broker as the console last wrote it into `dataDir`
 * (`local-broker.json`, kept by electron/services/broker-endpoint-file.ts), or null when the file
 * is missing or unreadable (an older console, or one whose broker never ran).
 */
export function consoleBrokerUrl(dataDir: string): string | null {
  try {
    const text = readFileSync(
      path.join(path.resolve(dataDir), CONSOLE_BROKER_ENDPOINT_FILE),
      'utf8',
    );
    const parsed = ConsoleBrokerEndpointSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.url : null;
  } catch {
    return null;
  }
}
