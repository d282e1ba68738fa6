/**
 * The start-up warning for auth changes that would not survive a restart (issue 23's operator
 * check). With authentication on, realms, tokens, keys and approvals changed at run time
 * (`switchboard-admin`, the console) are persisted to the auth store or, without one, into the
 * settings file. A broker configured by `TYO_MQ_*` variables alone — the container, compose
 * file and Kubernetes examples — has neither, so `switchboard-admin realm add` answered OK and
 * the realm was silently gone after the next restart.
 */
import { authStoreFile, type AuthStoreSetting } from './auth/store/auth-store-config';
import type { Broker } from './index';

/** What the warning is decided from: the running broker and where its settings file is. */
export interface VolatileAuthInput {
  broker: Pick<Broker, 'auth' | 'settings'>;
  /** The settings file in use (`--settings`, else `TYO_MQ_SETTINGS_FILE`), if any. */
  settingsFile: string | undefined;
  /** Absolute data directory (where `auth_store: true` puts its file). */
  dataDir: string;
}

/**
 * The warning's text, or null when nothing is at risk: auth off, a settings file or an auth
 * store configured, or a cluster (whose nodes share the auth block through Redis,
 * docs/cluster.md).
 */
export function volatileAuthWarning(input: VolatileAuthInput): string | null {
  const { broker, settingsFile, dataDir } = input;
  if (!broker.auth.enabled || settingsFile) return null;
  if (broker.settings.cluster?.enabled) return null;
  const setting = broker.settings.auth_store as AuthStoreSetting | undefined;
  if (authStoreFile(setting, settingsFile, dataDir)) return null;
  return (
    'authentication is on without a settings file or an auth store: realms, tokens, keys and ' +
    'approvals changed at run time (switchboard-admin, the console) are kept in memory only and ' +
    'lost when the broker stops. Set TYO_MQ_AUTH_STORE=true (or --auth-store) to keep them in ' +
    'the data directory, or give a settings file (--settings, TYO_MQ_SETTINGS_FILE)'
  );
}
