/**
 * Clustered broker nodes with auth on, for the shared admin state tests
 * (`spec/protocol-admin.md` §6.4, §7, §15): each node is a harness with an empty environment
 * (the admin-token bootstrap never touches the working directory), joined to one Redis under
 * one key prefix. The caller closes the nodes and stops the Redis server.
 */
import { signEnvelope } from '../../broker/auth/proof';
import type { SignedActionName } from '../../shared/admin-signature';
import { ADMIN_TOKEN } from './auth-clients';
import { startBroker, type BrokerSettings, type Harness } from './broker-harness';
import { clusterBlock, freshPrefix } from './cluster-nodes';

export const ADMIN_AUTH = {
  enabled: true,
  auto_admin_token: false,
  tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
};

export interface AuthNodeOptions {
  auth?: Record<string, unknown>;
  cluster?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  settingsFile?: string;
}

export { freshPrefix };

/** Starts one clustered node `id` with auth on (the admin token of `ADMIN_TOKEN`). */
export function startAuthNode(
  redisUrl: string,
  prefix: string,
  id: string,
  opts: AuthNodeOptions = {},
): Promise<Harness> {
  return startBroker(
    {
      ...opts.settings,
      auth: { ...ADMIN_AUTH, ...opts.auth },
      cluster: clusterBlock(redisUrl, prefix, id, { connect_timeout_ms: 2_000, ...opts.cluster }),
    } as BrokerSettings,
    { env: {}, settingsFile: opts.settingsFile },
  );
}

/** Emits an already signed `envelope` for `action` on a new socket; resolves with the ack. */
export async function sendSigned(
  h: Harness,
  action: SignedActionName,
  envelope: unknown,
): Promise<Record<string, unknown>> {
  const s = await h.connect();
  try {
    return (await s.timeout(5_000).emitWithAck(action, envelope)) as Record<string, unknown>;
  } finally {
    s.disconnect();
  }
}

/** A signed admin envelope for `body` (fresh nonce). */
export function adminEnvelope(action: SignedActionName, body: Record<string, unknown>): unknown {
  return signEnvelope(ADMIN_TOKEN, action, body);
}
