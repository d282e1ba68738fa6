/**
 * The shared admin state of a cluster, wired for `createBroker` (`spec/protocol-admin.md`
 * §6.4, §7, §15; docs/cluster.md "Admin state in a cluster"): cluster-wide proof nonces
 * (`shared-nonces.ts`), the shared settings document (`settings-sync.ts`), the shared
 * authorization requests (`shared-auth-requests.ts`) and realm renames (`realm-renames.ts`).
 * Everything is absent when the node is not clustered.
 */
import { parseRealmTtlMs } from '../../shared/realm-ttl';
import type { AuthState } from '../auth/auth-state';
import type { NonceStore } from '../auth/nonce-store';
import { DEFAULT_REQUEST_TTL_MS, type AuthorizationRequests } from '../auth/authorization-requests';
import type { Logger } from '../logging/logger';
import type { BrokerServer } from '../transport/socket-types';
import type { Cluster } from './create-cluster';
import { RealmRenames, type LocalRealmRename } from './realm-renames';
import type { SharedSettingsPort } from './settings-document';
import { SettingsSync } from './settings-sync';
import { SharedAuthRequests, type RequesterNotifier } from './shared-auth-requests';
import { SharedNonces } from './shared-nonces';

export interface ClusterAdmin {
  readonly nonces?: SharedNonces;
  readonly requests?: SharedAuthRequests;
  readonly settings?: SettingsSync;
  readonly renames?: RealmRenames;
  /** The handler-context parts (`clusterNonces`, `clusterRequests`); empty when not clustered. */
  readonly context: { clusterNonces?: SharedNonces; clusterRequests?: SharedAuthRequests };
  /** Drops a disposed realm's requests, here and in the shared document; returns local pending. */
  dropRealm(realm: string): number;
  /** Adopts the cluster's settings (or seeds them), then follows changes. Never rejects. */
  start(): Promise<void>;
  close(): void;
}

export interface ClusterAdminDeps {
  shared: SharedSettingsPort;
  auth: AuthState;
  authRequests: AuthorizationRequests;
  /** The node's own claimed nonces, given back to Redis when it comes back (`SharedNonces`). */
  localNonces?: Pick<NonceStore, 'live'>;
  /** The broker's socket.io server (requesters' sockets are looked up in `/`). */
  io: BrokerServer;
  /** Sends a decision made on another node to its requester here (`notifyRequester`). */
  notifyRequester: RequesterNotifier;
  /** What this node does with a rename made on another node (realm-renames.ts). */
  localRename: LocalRealmRename;
  /** This node's store name when shared (`sharedStoreName`), else `""`. */
  storeName(): string;
  logger: Logger;
}

export function clusterAdmin(cluster: Cluster, deps: ClusterAdminDeps): ClusterAdmin {
  const { links, settings: config, nodeId } = cluster;
  if (!links || !config || nodeId === null) {
    return {
      context: {},
      dropRealm: (realm) => deps.authRequests.dropRealm(realm),
      start: () => Promise.resolve(),
      close: () => undefined,
    };
  }
  const logger = deps.logger.child({ node: nodeId });
  const prefix = config.prefix;
  const settings = new SettingsSync({
    nodeId,
    prefix,
    links,
    port: deps.shared,
    auth: deps.auth,
    logger,
  });
  const requests = new SharedAuthRequests({
    nodeId,
    prefix,
    links,
    local: deps.authRequests,
    logger,
    socket: (id) => deps.io.of('/').sockets.get(id),
    notify: deps.notifyRequester,
    settingsRev: () => settings.flush(),
    settingsAt: (rev) => settings.at(rev),
    // As the local registry's (`auth-wiring.ts`): `auth.request_ttl`, default 24 h.
    ttlMs: () => parseRealmTtlMs(deps.auth.config.request_ttl) ?? DEFAULT_REQUEST_TTL_MS,
  });
  const renames = new RealmRenames({
    nodeId,
    prefix,
    links,
    auth: deps.auth,
    store: deps.storeName,
    local: deps.localRename,
    holdSettings: (until) => settings.hold(until),
    logger,
  });
  let started = false;
  const nonces = new SharedNonces(prefix, links, config.nonce_fail_open, logger, deps.localNonces);
  return {
    nonces,
    requests,
    settings,
    renames,
    context: { clusterNonces: nonces, clusterRequests: requests },
    dropRealm(realm) {
      void requests.dropRealm(realm);
      return deps.authRequests.dropRealm(realm);
    },
    async start() {
      if (started) return;
      started = true;
      requests.start();
      // Renames missed while away are replayed before the cluster's document is adopted.
      await renames.start();
      await settings.start();
    },
    close: () => {
      renames.close();
      settings.close();
    },
  };
}
