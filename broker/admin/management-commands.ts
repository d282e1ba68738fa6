/**
 * The management command catalogue (`spec/protocol-admin.md` §8.1–§8.2): each command's
 * privilege (A = global admin only, A/R = admin or the realm's own manager key), whether it is
 * asynchronous (store reads; this decides the reply events of the §8.1 quirk), and how it runs.
 *
 * Settings commands mutate a deep copy of `auth` committed whole (AuthState.update), so a
 * failing command changes nothing; runtime side effects (disposal, disconnects) follow commit.
 */
import type {
  CommandSpec,
  Extras,
  ManagementServices,
  RealmRenameNotices,
  Result,
} from './management-services';
import { mutate, now, renameWithData, settingsReply } from './settings-reply';
import type { AuthConfig } from '../auth/auth-schema';
import { backupStore } from './backup-commands';
import { CommandError, realmParam, type CommandBody, type ManagerScope } from './command-types';
import { clientDetail, closeClient } from './client-commands';
import { removeConsumer } from './consumer-commands';
import { listIdentities, revokeIdentityKey } from './identity-commands';
import { dlqDiscard, dlqList, dlqReplay } from './dlq-commands';
import { setExternalAuth } from './external-auth-commands';
import { setPersistence } from './persistence-commands';
import { moveQueue, releaseInFlight } from './queue-actions';
import {
  discardQueued,
  listQueues,
  peekQueue,
  purgeQueue,
  type QueueServices,
} from './queue-commands';
import { listRequests } from './request-commands';
import { readResources } from './resource-commands';
import { realmKeys } from './realm-key-commands';
import { deleteRetained, listRetained } from './retained-commands';
import * as realmCommands from './realm-commands';
import * as tokenCommands from './token-commands';

export type { CommandSpec, ManagementServices, RealmRenameNotices, Result };

/**
 * The commands a realm manager key may run: the four of §6.5, plus Switchboard's
 * `set_realm_tokenless_consumers` (issue 20; a realm's own reader policy, like its key) and
 * `set_realm_require_key` (issue 27; the key's requirement without the key), the
 * realm's own clients (`client_detail`, `close_client`, issue 27), its own queues (the queue
 * commands), its own MQTT retained messages (`list_retained`, `delete_retained`) and its own
 * E2EE identities (`list_identities`, `revoke_identity_key`).
 */
export const REALM_SCOPABLE = new Set([
  'set_realm_lifetime',
  'set_realm_key',
  'set_realm_acceptance',
  'set_realm_e2ee',
  'set_realm_tokenless_consumers',
  'set_realm_require_key',
  'list_requests',
  'end_sessions',
  'client_detail',
  'close_client',
  'list_queues',
  'peek_queue',
  'purge_queue',
  'discard_queued',
  'move_queue',
  'release_in_flight',
  'list_retained',
  'delete_retained',
  'list_identities',
  'revoke_identity_key',
]);

/** A synchronous settings command built from a pure draft mutation. */
function settingsCommand(
  privilege: 'A' | 'A/R',
  fn: (draft: AuthConfig, body: CommandBody, scope: ManagerScope, at: number) => Extras | void,
): CommandSpec {
  return {
    privilege,
    async: false,
    run(services, body, scope) {
      const extras = mutate(services, (draft) => fn(draft, body, scope, now(services))) ?? {};
      return settingsReply(services, scope, extras);
    },
  };
}

/**
 * A settings command that changes a realm's secret: the reply adds `ended_sessions`, the live
 * sessions of that realm whose credential the change ended (issue 22 item 7).
 */
function secretCommand(
  privilege: 'A' | 'A/R',
  fn: (draft: AuthConfig, body: CommandBody) => void,
): CommandSpec {
  const inner = settingsCommand(privilege, (d, b) => fn(d, b));
  return {
    ...inner,
    run(services, body, scope) {
      const reply = inner.run(services, body, scope) as Result;
      const realm = typeof body.realm === 'string' ? body.realm : '';
      return services.sessions && realm
        ? { ...reply, ended_sessions: services.sessions.stale(realm) }
        : reply;
    },
  };
}

/**
 * A queue command (`queue-commands.ts`): admin, or a realm's manager key for its own realm
 * (the body's `realm` is forced to it).
 */
function queueCommand(
  readOnly: boolean,
  fn: (services: QueueServices, body: CommandBody) => Promise<Result>,
): CommandSpec {
  return {
    privilege: 'A/R',
    async: true,
    readOnly,
    run(services, body, scope) {
      const name = typeof body.command === 'string' ? body.command : 'queue commands';
      if (!services.queues) throw new CommandError(501, `${name} is not available`);
      return fn(services.queues, scope.kind === 'realm' ? { ...body, realm: scope.realm } : body);
    },
  };
}

export const COMMANDS: Record<string, CommandSpec> = {
  get: {
    privilege: 'A',
    async: false,
    readOnly: true,
    run: (s, _b, scope) => settingsReply(s, scope),
  },
  reload_settings: {
    privilege: 'A',
    // Settings-command reply events (§8.1), though the file read may be asynchronous.
    async: false,
    async run(services, _body, scope) {
      if (!services.reloadSettings) {
        throw new CommandError(400, 'No settings file is being watched');
      }
      try {
        await services.reloadSettings();
      } catch (err) {
        throw new CommandError(500, `Settings reload failed: ${(err as Error).message}`);
      }
      return settingsReply(services, scope);
    },
  },
  set_global_auth: settingsCommand('A', (d, b) => tokenCommands.setGlobalAuth(d, b)),
  set_persistence: {
    privilege: 'A',
    async: false,
    run(services, body, scope) {
      const view = setPersistence(body, services.allowCustomStorage());
      try {
        services.setPersistence(view);
      } catch (err) {
        throw new CommandError(400, (err as Error).message);
      }
      return settingsReply(services, scope);
    },
  },
  add_realm: settingsCommand('A', (d, b, _s, at) => {
    realmCommands.addRealm(d, b, at);
  }),
  rename_realm: {
    privilege: 'A',
    // Settings-command reply events (§8.1), though the data move is asynchronous.
    async: false,
    async run(services, body, scope) {
      // Validation first, on a copy: a refused command touches neither config nor data.
      realmCommands.renameRealm(structuredClone(services.auth.config) as AuthConfig, body);
      const from = body.from as string;
      const to = body.to as string;
      const data = services.realmData;
      // Two tenants' data never merge (docs/management.md).
      if (data && (await data.holds(to))) {
        throw new CommandError(409, 'target realm already holds stored data');
      }
      const notice = data ? services.renames?.begin(from, to) : undefined;
      try {
        const reply = await renameWithData(services, body, scope, from, to);
        await notice?.announce();
        return reply;
      } finally {
        notice?.cancel();
      }
    },
  },
  remove_realm: {
    privilege: 'A',
    async: false,
    run(services, body, scope) {
      const named = typeof body.realm === 'string' ? body.realm : '';
      const bound = named ? services.lifecycle.socketsOf(named) : [];
      const outcome = mutate(services, (d) => realmCommands.removeRealm(d, body));
      const realm = outcome.disposed!;
      const runtime = services.lifecycle.disposeRuntime(realm, bound);
      services.logger.info(
        { realm, removed_tokens: outcome.removed_tokens, ...runtime, reason: 'removed' },
        'realm disposed',
      );
      return settingsReply(services, scope, {
        removed_tokens: outcome.removed_tokens,
        disconnected_sockets: runtime.disconnected_sockets,
      });
    },
  },
  set_realm_auth: settingsCommand('A', (d, b) => {
    realmCommands.setRealmAuth(d, b);
  }),
  set_realm_manager_key: secretCommand('A', (d, b) => {
    realmCommands.setRealmManagerKey(d, b);
  }),
  set_realm_key: secretCommand('A/R', (d, b) => {
    realmCommands.setRealmKey(d, b);
  }),
  end_sessions: {
    privilege: 'A/R',
    async: false,
    run(services, body, scope) {
      if (!services.sessions) throw new CommandError(501, 'end_sessions is not available');
      const realm = scope.kind === 'realm' ? scope.realm : realmParam(body);
      const ended = services.sessions.endAll(realm);
      services.logger.info({ realm, ended_sessions: ended }, 'realm sessions ended');
      return { ok: true, realm, ended_sessions: ended };
    },
  },
  // The key is unchanged, so no session's credential ends: a plain settings command.
  set_realm_require_key: settingsCommand('A/R', (d, b) => {
    realmCommands.setRealmRequireKey(d, b);
  }),
  set_realm_acceptance: settingsCommand('A/R', (d, b) => {
    realmCommands.setRealmAcceptance(d, b);
  }),
  set_realm_tokenless_consumers: settingsCommand('A/R', (d, b) => {
    realmCommands.setRealmTokenlessConsumers(d, b);
  }),
  set_realm_e2ee: settingsCommand('A/R', (d, b) => {
    realmCommands.setRealmE2ee(d, b);
  }),
  set_realm_lifetime: settingsCommand('A/R', (d, b, scope, at) => {
    realmCommands.setRealmLifetime(d, b, scope, at);
  }),
  add_management_token: settingsCommand('A', (d, b) => tokenCommands.addManagementToken(d, b)),
  revoke_management_token: settingsCommand('A', (d, b) =>
    tokenCommands.revokeManagementToken(d, b),
  ),
  set_external_auth: settingsCommand('A', (d, b) => setExternalAuth(d, b)),
  revoke_token: settingsCommand('A', (d, b) => tokenCommands.revokeToken(d, b)),
  stats: {
    privilege: 'A',
    async: true,
    readOnly: true,
    run: async (services) => ({ ok: true, stats: await services.stats() }),
  },
  remove_consumer: {
    privilege: 'A',
    async: true,
    run: (s, b) => {
      if (!s.consumers) throw new CommandError(501, 'remove_consumer is not available');
      return removeConsumer(s.consumers, b);
    },
  },
  client_detail: {
    privilege: 'A/R',
    async: false,
    readOnly: true,
    run(s, b, scope) {
      if (!s.clients) throw new CommandError(501, 'client_detail is not available');
      return clientDetail(s.clients, b, scope);
    },
  },
  close_client: {
    privilege: 'A/R',
    async: false,
    run(s, b, scope) {
      if (!s.clients) throw new CommandError(501, 'close_client is not available');
      return closeClient(s.clients, b, scope, s.logger);
    },
  },
  realm_keys: {
    privilege: 'A',
    async: false,
    readOnly: true,
    run: (s, b) => realmKeys(s.auth.config, b),
  },
  resources: {
    privilege: 'A',
    async: true,
    readOnly: true,
    run: (s) => readResources(s.resources),
  },
  dlq_list: { privilege: 'A', async: true, readOnly: true, run: (s, b) => dlqList(s, b) },
  list_queues: queueCommand(true, listQueues),
  peek_queue: queueCommand(true, peekQueue),
  purge_queue: queueCommand(false, purgeQueue),
  discard_queued: queueCommand(false, discardQueued),
  move_queue: queueCommand(false, moveQueue),
  release_in_flight: queueCommand(false, releaseInFlight),
  // A realm manager key browses and clears its own realm's retained messages only.
  list_retained: {
    privilege: 'A/R',
    async: true,
    readOnly: true,
    run: (s, b, scope) =>
      listRetained(s.retained, scope.kind === 'realm' ? { ...b, realm: scope.realm } : b),
  },
  delete_retained: {
    privilege: 'A/R',
    async: true,
    run: (s, b, scope) =>
      deleteRetained(s.retained, scope.kind === 'realm' ? { ...b, realm: scope.realm } : b),
  },
  // A realm manager key sees and revokes its own realm's E2EE identities only.
  list_identities: {
    privilege: 'A/R',
    async: true,
    readOnly: true,
    run: async (s, b, scope) =>
      listIdentities(s.identities, scope.kind === 'realm' ? { ...b, realm: scope.realm } : b),
  },
  revoke_identity_key: {
    privilege: 'A/R',
    async: true,
    run: (s, b, scope) =>
      revokeIdentityKey(s.identities, scope.kind === 'realm' ? { ...b, realm: scope.realm } : b),
  },
  list_requests: {
    privilege: 'A/R',
    async: true,
    readOnly: true,
    // A realm manager key lists its own realm's requests only.
    run: (s, b, scope) =>
      listRequests(s, scope.kind === 'realm' ? { ...b, realm: scope.realm } : b),
  },
  dlq_replay: { privilege: 'A', async: true, run: (s, b) => dlqReplay(s, b) },
  dlq_discard: { privilege: 'A', async: true, run: (s, b) => dlqDiscard(s, b) },
  backup_store: { privilege: 'A', async: true, run: (s, b) => backupStore(s, b) },
};

/** The command of `name`, own keys only (a body's `command` is client input). */
export function commandSpec(name: unknown): CommandSpec | undefined {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(COMMANDS, name)
    ? COMMANDS[name]
    : undefined;
}
