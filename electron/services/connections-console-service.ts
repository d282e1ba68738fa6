/**
 * The ConsoleApi's connection methods (`shared/console-api-connections.ts`): remote profiles kept
 * by a ConnectionProfileStore (secrets in the SecretStore) and run by the ConnectionManager.
 * Spread into `createConsoleService`. No result ever holds a secret.
 */
import type { ConsoleService } from '../../shared/console-api';
import {
  DRAFT_CONNECTION_ID,
  type ConnectionProfileFields,
  type ConnectionSummary,
  type SecretStoreInfo,
} from '../../shared/console-api-connections';
import { SwitchboardError } from '../../shared/error-catalogue';
import { parseBrokerUrl } from './broker-endpoint';
import type { ConnectionManager, ConnectionProfile } from './connection-manager';
import type { ConnectionProfileStore, StoredProfile } from './connection-profiles';
import { testConnection } from './connection-tester';
import { remoteTarget } from './remote-target';
import { FileSecretStore, type SecretStore } from './secret-store';

type ConnectionsService = Pick<
  ConsoleService,
  | 'listConnections'
  | 'addConnection'
  | 'editConnection'
  | 'removeConnection'
  | 'testConnection'
  | 'testConnectionDraft'
  | 'exportConnections'
  | 'importConnections'
  | 'getSecretStoreInfo'
>;

export interface ConnectionsServiceDeps {
  connections: ConnectionManager;
  /** Remote profiles; absent: only the local broker, and adding one is refused. */
  profiles?: ConnectionProfileStore;
  secrets?: SecretStore;
  /** Per-layer timeout of `testConnection` in ms. Default 5000. */
  testTimeoutMs?: number;
}

/** Registers every stored profile with the manager (call once at start-up). */
export function loadRemoteConnections(
  connections: ConnectionManager,
  profiles: ConnectionProfileStore,
): void {
  for (const stored of profiles.list()) register(connections, profiles, stored);
}

function register(
  connections: ConnectionManager,
  profiles: ConnectionProfileStore,
  stored: StoredProfile,
): void {
  connections.putRemote(stored, () => profiles.secret(stored.id));
}

/** Whether two broker URLs name the same broker (same scheme, host, port and base path). */
function sameBroker(a: string, b: string): boolean {
  try {
    return parseBrokerUrl(a).baseUrl === parseBrokerUrl(b).baseUrl;
  } catch {
    return false;
  }
}

/** What the UI may say about where secrets live. */
export function secretStoreInfo(secrets: SecretStore | undefined): SecretStoreInfo {
  if (!secrets) return { kind: 'other', osKeychain: false, description: 'no secret store' };
  if (secrets instanceof FileSecretStore || secrets.kind === 'file') {
    return { kind: 'file', osKeychain: false, description: secrets.description };
  }
  const keychain = secrets.kind === 'os-keychain';
  return {
    kind: keychain ? 'os-keychain' : 'other',
    osKeychain: keychain,
    description: secrets.description,
  };
}

export function createConnectionsService({
  connections,
  profiles,
  secrets,
  testTimeoutMs,
}: ConnectionsServiceDeps): ConnectionsService {
  const store = (): ConnectionProfileStore => {
    if (!profiles) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        'This console has no profile store: remote connections cannot be added',
      );
    }
    return profiles;
  };
  const remoteOnly = (connectionId: string): void => {
    connections.profile(connectionId); // SWB_ERR_NOT_FOUND for an unknown id
    if (!connections.profile(connectionId).stored) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        'The built-in local broker cannot be edited or removed',
      );
    }
  };
  const summary = (id: string): ConnectionSummary => {
    const found = connections.summaries().find((entry) => entry.id === id);
    if (!found) throw new SwitchboardError('SWB_ERR_NOT_FOUND', `Unknown connection: ${id}`);
    return found;
  };
  const fields = (input: ConnectionProfileFields): ConnectionProfileFields => ({
    name: input.name,
    url: input.url,
    tls: input.tls,
    credential: input.credential,
    allowInsecureBearer: input.allowInsecureBearer,
  });

  return {
    listConnections: async () => connections.summaries(),
    addConnection: async (input) => {
      const stored = store().add(fields(input), input.secret);
      register(connections, store(), stored);
      return summary(stored.id);
    },
    editConnection: async (input) => {
      remoteOnly(input.connectionId);
      const stored = store().edit(
        input.connectionId,
        fields(input),
        input.secret,
        input.clearSecret === true,
      );
      register(connections, store(), stored);
      return summary(stored.id);
    },
    removeConnection: async ({ connectionId }) => {
      remoteOnly(connectionId);
      store().remove(connectionId);
      connections.remove(connectionId);
      return { connectionId };
    },
    testConnection: ({ connectionId }) =>
      testConnection(connections.profile(connectionId), testTimeoutMs),
    testConnectionDraft: async (input) => {
      const draft = fields(input);
      let secret: string | null = draft.credential.kind === 'none' ? null : (input.secret ?? null);
      if (secret === null && input.connectionId && draft.credential.kind !== 'none') {
        remoteOnly(input.connectionId);
        const saved = store().get(input.connectionId);
        // The stored secret only ever goes to the address it was saved for.
        if (!sameBroker(saved.url, draft.url)) {
          throw new SwitchboardError(
            'SWB_ERR_VALIDATION',
            'Enter the credential to test this URL: the stored one is only sent to the URL it ' +
              'was saved for',
          );
        }
        secret = store().secret(input.connectionId);
      }
      const stored: StoredProfile = { ...draft, id: input.connectionId ?? DRAFT_CONNECTION_ID };
      const profile: ConnectionProfile = {
        id: stored.id,
        name: stored.name,
        stored,
        target: remoteTarget(stored, () => secret),
        url: () => stored.url,
        secret: () => secret,
      };
      return testConnection(profile, testTimeoutMs);
    },
    exportConnections: async () => ({
      format: 'switchboard-connections' as const,
      version: 1 as const,
      profiles: (profiles?.list() ?? []).map(fields),
    }),
    importConnections: async ({ document }) => {
      const added: ConnectionSummary[] = [];
      for (const entry of document.profiles) {
        const name = store().freeName(entry.name, ['local broker']);
        // Imported without secrets: the credential kind is kept, its secret must be entered.
        const stored = store().add({ ...fields(entry), name }, undefined, {
          allowMissingSecret: true,
        });
        register(connections, store(), stored);
        added.push(summary(stored.id));
      }
      return added;
    },
    getSecretStoreInfo: async () => secretStoreInfo(secrets),
  };
}
