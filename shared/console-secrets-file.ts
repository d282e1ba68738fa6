/**
 * Where the console keeps its own secrets on disk, shared by the console (which writes them,
 * electron/services/secret-store.ts) and `switchboard-admin --console-data-dir` (which reads the
 * local broker's admin token from them without printing it; docs/management.md).
 *
 * Runtime-free: names and the file's shape only; reading and writing is the callers' (Node) job.
 */
import { z } from 'zod';

/** The web host's plain secrets file (mode 0600) inside the console's data directory. */
export const CONSOLE_SECRETS_FILE = 'console-secrets.json';

/**
 * The desktop app's file of OS-keychain ciphertexts (`safeStorage`), in `<userData>`, the parent
 * of its broker data directory `<userData>/broker-data`. Only the app itself can decrypt it.
 */
export const CONSOLE_SAFE_SECRETS_FILE = 'console-secrets.safe.json';

/** Key of the local broker's global admin token in either file. */
export const LOCAL_ADMIN_TOKEN_KEY = 'local.adminToken';

/** Variable naming the console's data directory (`npm run console`), read before the default. */
export const CONSOLE_DATA_DIR_ENV = 'SWITCHBOARD_DATA_DIR';

/** The default data directory of `npm run console`, relative to the user's home directory. */
export const CONSOLE_DATA_DIR_UNDER_HOME = ['.switchboard', 'data'] as const;

/** The content of `console-secrets.json`: `{version: 1, secrets: {<name>: <value>}}`. */
export const ConsoleSecretsFileSchema = z.object({
  version: z.literal(1),
  secrets: z.record(z.string(), z.string()),
});

/**
 * The local broker's address, written by the console into its data directory whenever its
 * broker is running (`{version: 1, url}`), so that `switchboard-admin --console-data-dir` finds a
 * broker started on another port (`--broker-port`). Not a secret: the URL only.
 */
export const CONSOLE_BROKER_ENDPOINT_FILE = 'local-broker.json';

/** The content of `local-broker.json`. */
export const ConsoleBrokerEndpointSchema = z.object({
  version: z.literal(1),
  url: z.string().url(),
});
