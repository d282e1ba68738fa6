/**
 * Live settings and where they persist (`spec/protocol-admin.md` §12.3–§12.4, §14): builds the
 * `LiveSettings` holder and the `AuthState`, loads and watches the settings file, activates the
 * SQLite auth store, and subscribes both persistences to `AuthState.onChange`.
 *
 * - Effective settings = launcher defaults (`createBroker`'s input) ⊕ settings file ⊕
 *   overrides (`TYO_MQ_*`, flags); see `settings-layers.ts`.
 * - Reload (file watcher, SIGHUP, `reload_settings`) re-reads the file and replaces the file
 *   layer whole: keys deleted from the file are gone. An invalid file is logged and ignored
 *   (the old settings stay). With the auth store active, the file's realms and tokens are an
 *   inbox: new entries are imported, the store wins for the rest and for removals (§14).
 * - Runtime auth changes (any origin but `file`) rewrite the whole file atomically; with the
 *   store active its realms/tokens/management_tokens are left out of the file.
 */
import { stableJson } from '../../shared/admin-signature';
import { SwitchboardError } from '../../shared/error-catalogue';
import { describeAuthIssues, parseAuthConfig, type AuthConfig } from '../auth/auth-schema';
import { AuthState } from '../auth/auth-state';
import { MemoryNonceStore, type NonceStore } from '../auth/nonce-store';
import type { RequestStore } from '../auth/request-store';
import { authStoreFile, type AuthStoreSetting } from '../auth/store/auth-store-config';
import { mergeStoreWins, SqliteAuthStore } from '../auth/store/sqlite-auth-store';
import { localPart, sharedPart, type SharedSettingsPort } from '../cluster/settings-document';
import type { Logger } from '../logging/logger';
import { composeLayers } from './effective-config';
import { readEnvLayer, unknownEnvError } from './env-mapping';
import { envSettingsOverrides } from '../files/env-settings';
import { LiveSettings } from './live-settings';
import { parseSettings } from './load-settings';
import { normalizeSettingsAliases } from './normalize-aliases';
import { layerSettings } from './settings-layers';
import { SettingsFile } from './settings-file';
import type { Settings } from './settings-schema';

type Json = Record<string, unknown>;

export interface SettingsRuntimeOptions {
  /** Launcher defaults: the layer under the file (and the content of a newly created file). */
  input: unknown;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  dataDir: string;
  /** Settings file to load, watch and persist to (§12.3). */
  settingsFile?: string;
  /** Layer over the file (CLI flags); `TYO_MQ_*` overrides are added from `env`. */
  overrides?: Json;
  /** Watch the file for edits (default true when a file is given). */
  watch?: boolean;
}

export interface SettingsRuntime {
  readonly live: LiveSettings;
  readonly auth: AuthState;
  /** Claimed proof nonces: in the auth store when active, else in memory. */
  readonly nonces: NonceStore;
  /** The active auth store's file, or null. */
  authStoreFile(): string | null;
  /** The active auth store's authorization requests (issue 22 item 1), or null. */
  requestStore(): RequestStore | null;
  /** The cluster's access to the shared settings document (docs/cluster.md). */
  readonly shared: SharedSettingsPort;
  /**
   * Re-reads the settings file and applies it.
   * @throws SwitchboardError `SWB_ERR_VALIDATION` ("No settings file is being watched", or the
   *   file's errors — the old settings then stay).
   */
  reload(): Promise<Settings>;
  /**
   * Online copy of the active auth store to the new file `dest` (`SqliteAuthStore.backup`);
   * resolves with its size in bytes, or null when no auth store is active.
   * @throws SwitchboardError `SWB_ERR_CONFLICT` (`dest` exists), `SWB_ERR_STORAGE` (it failed).
   */
  backupAuthStore(dest: string): Promise<number | null>;
  /** Resolves when queued settings-file writes are on disk. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Values the auth schema fills in by default: `enabled: false`, empty lists and maps. */
function isEmptyDefault(key: string, value: unknown): boolean {
  if (key === 'enabled') return value === false;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** `input` plus `auth.realms.default = {required: false}` (§12.3) for a new settings file. */
function seeded(input: unknown): Json {
  const base = isObject(input) ? input : {};
  const auth = isObject(base.auth) ? base.auth : {};
  const realms = isObject(auth.realms) ? auth.realms : {};
  return { ...base, auth: { ...auth, realms: { default: { required: false }, ...realms } } };
}

/** Checks an auth block before anything commits, so a bad reload changes nothing. */
function assertValidAuth(input: unknown): void {
  const result = parseAuthConfig(input);
  if (result.success) return;
  const detail = describeAuthIssues(result.error.issues);
  throw new SwitchboardError('SWB_ERR_VALIDATION', `Invalid auth settings: ${detail}`);
}

/**
 * @throws SwitchboardError `SWB_ERR_VALIDATION` when the initial settings (or file) are invalid.
 */
export function createSettingsRuntime(options: SettingsRuntimeOptions): SettingsRuntime {
  const { logger, env, dataDir } = options;
  const defaults = isObject(options.input) ? options.input : {};
  const overrides = layerSettings(envSettingsOverrides(env), options.overrides);
  // Every other setting's TYO_MQ_* variable (env-mapping.ts), set leaf by leaf over the file.
  const envLayer = readEnvLayer(env);
  const typo = unknownEnvError(envLayer);
  if (typo) throw new SwitchboardError('SWB_ERR_VALIDATION', typo);
  const file = options.settingsFile ? new SettingsFile(options.settingsFile) : null;
  const loaded = file?.readOrCreateSync(() => seeded(options.input));
  let fileContent: Json = loaded?.content ?? {};

  // Once a cluster document was adopted, the launcher defaults supply node-local keys only:
  // the shared ones are the document's, now in the file layer.
  let adopted = false;
  const base = (): Json => (adopted ? localPart(defaults) : defaults);
  const compose = (content: Json) => composeLayers(base(), content, envLayer.leaves, overrides);
  const initial = parseSettings(compose(fileContent), env);
  const live = new LiveSettings(initial, logger);
  const auth = new AuthState(initial.auth ?? {});
  const memoryNonces = new MemoryNonceStore();
  let store: SqliteAuthStore | null = null;

  /** The file's view: its own keys, with the auth block as it now stands. */
  const fileView = (): Json => {
    const block = structuredClone({ ...auth.config }) as Partial<AuthConfig> & Json;
    if (store) {
      delete block.realms;
      delete block.tokens;
      delete block.management_tokens;
    }
    // Values forced by env/flags (TYO_MQ_AUTH_ENABLED…) keep the file's own value.
    const own = isObject(fileContent.auth) ? fileContent.auth : {};
    for (const key of Object.keys(isObject(overrides.auth) ? overrides.auth : {})) {
      if (key in own) block[key] = own[key];
      else delete block[key];
    }
    // Schema defaults the file never had (`tokens: []`, `enabled: false`…) stay out of it.
    for (const [key, value] of Object.entries(block)) {
      if (!(key in own) && isEmptyDefault(key, value)) delete block[key];
    }
    if (Object.keys(block).length === 0 && !('auth' in fileContent)) return { ...fileContent };
    return { ...fileContent, auth: block };
  };
  // Until this function returns, writes are synchronous: the seed of a new file (and its
  // rewrite after the auth store import) is on disk before the broker listens, so an operator's
  // first edit cannot be overwritten by a write still in flight.
  let startingUp = true;
  let seedWritten = false;
  const persist = (force = false) => {
    if (!file) return;
    const content = fileView();
    if (!force && stableJson(content) === stableJson(fileContent)) return;
    fileContent = content;
    const failed = (err: unknown) => {
      logger.error({ err: (err as Error).message, file: file.path }, 'settings file not written');
    };
    if (!startingUp) {
      file.write(content).catch(failed);
      return;
    }
    try {
      file.writeSync(content);
      seedWritten = true;
    } catch (err) {
      failed(err);
    }
  };

  let runtimeChanges = 0;
  let adopting = false;
  auth.onChange((next, _prev, origin) => {
    if (origin !== 'file') runtimeChanges++;
    if (store) {
      try {
        store.sync(next);
      } catch {
        // Logged by the store; the snapshot is unchanged, so the next change retries.
      }
    }
    if (origin !== 'file' && !adopting) persist();
  });

  const activate = (setting: AuthStoreSetting | undefined) => {
    if (store) return;
    const filename = authStoreFile(setting, options.settingsFile, dataDir);
    if (!filename) return;
    try {
      store = new SqliteAuthStore(filename, logger);
    } catch (err) {
      logger.error(
        { err: (err as Error).message },
        'auth store unavailable; persisting to the settings file',
      );
      return;
    }
    logger.info({ file: filename }, 'auth store active');
    // Commit the import (origin 'store'): the listener writes settings-only rows to the store
    // and rewrites the file without realms/tokens.
    auth.replace(store.importInto(auth.config), 'store');
  };
  activate(initial.auth_store as AuthStoreSetting | undefined);
  if (loaded?.created && !seedWritten) persist(true);
  startingUp = false;

  const reload = async (): Promise<Settings> => {
    if (!file) {
      throw new SwitchboardError('SWB_ERR_VALIDATION', 'No settings file is being watched');
    }
    // A runtime change that lands while the file is being read is written after it: read
    // again, or the reload would commit a file that no longer holds that change.
    let content: Json;
    for (let attempt = 0; ; attempt++) {
      const seen = runtimeChanges;
      await file.flush();
      content = await file.read();
      if (seen === runtimeChanges || attempt === 3) break;
    }
    const next = parseSettings(compose(content), env);
    let nextAuth: unknown = next.auth ?? {};
    assertValidAuth(nextAuth);
    if (store) nextAuth = mergeStoreWins(parseAuthConfig(nextAuth).data!, auth.config);
    assertValidAuth(nextAuth);
    fileContent = content;
    file.accept();
    live.replace(next);
    auth.replace(nextAuth, 'file');
    const wanted = authStoreFile(
      next.auth_store as AuthStoreSetting,
      options.settingsFile,
      dataDir,
    );
    if (store && wanted !== store.filename) {
      logger.warn(
        { keys: ['auth_store'] },
        'settings changed that take effect only after a restart (needs restart)',
      );
    }
    activate(next.auth_store as AuthStoreSetting | undefined);
    logger.info({ file: file.path }, 'settings reloaded');
    return next;
  };

  if (file && options.watch !== false) {
    file.watch(() => {
      reload().catch((err: unknown) => {
        logger.warn({ err: (err as Error).message, file: file.path }, 'settings file ignored');
      });
    });
  }

  const shared: SharedSettingsPort = {
    document() {
      const layered = layerSettings(base(), fileContent);
      const own = isObject(layered.auth) ? layered.auth : {};
      const block = { ...auth.config } as Json;
      // Env/flag overrides (TYO_MQ_AUTH_ENABLED…) are this node's: share the layered value.
      for (const key of Object.keys(isObject(overrides.auth) ? overrides.auth : {})) {
        if (key in own) block[key] = own[key];
        else delete block[key];
      }
      return { ...sharedPart(layered), auth: block };
    },
    adopt(doc) {
      const incoming = sharedPart(normalizeSettingsAliases(doc) as Json);
      const content: Json = { ...localPart(fileContent), ...incoming };
      const next = parseSettings(
        composeLayers(localPart(defaults), content, envLayer.leaves, overrides),
        env,
      );
      const nextAuth: unknown = next.auth ?? {};
      assertValidAuth(nextAuth);
      adopted = true;
      fileContent = content;
      live.replace(next);
      adopting = true;
      try {
        auth.replace(nextAuth, 'cluster');
      } finally {
        adopting = false;
      }
      persist(true);
    },
  };

  return {
    live,
    auth,
    shared,
    nonces: {
      claim: (nonce, expiresAt) => (store?.nonces ?? memoryNonces).claim(nonce, expiresAt),
      live: (now) => (store?.nonces ?? memoryNonces).live(now),
    },
    authStoreFile: () => store?.filename ?? null,
    requestStore: () => store?.requests ?? null,
    reload,
    async backupAuthStore(dest) {
      return store ? store.backup(dest) : null;
    },
    flush: () => file?.flush() ?? Promise.resolve(),
    async close() {
      await file?.close();
      store?.close();
      store = null;
    },
  };
}
