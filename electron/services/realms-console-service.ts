/**
 * The Realms / Clients-and-tokens / request-queue / Activity methods of the ConsoleService
 * (`shared/console-api-realms.ts`, `shared/console-api-activity.ts`), each one a signed command
 * of the catalogue (`spec/protocol-admin.md` §8.2, §7.2) sent through the (audited) pool.
 *
 * Generated secrets (`revealGeneratedSecret`) are 32 random bytes from this process, sent to the
 * broker inside a signed command and returned once; nothing here keeps, logs or audits them.
 */
import { randomBytes } from 'node:crypto';
import type { ConsoleService } from '../../shared/console-api';
import type { RealmAction } from '../../shared/console-api-realms';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { ActivityLog } from './activity-log';
import { toRealmList, type ManagerPool } from './manager-pool';
import { pendingPage } from './pending-requests';
import { toTokenList } from './token-list';
import { isUnknownCommand } from './unknown-command';

type RealmsServiceMethods = Pick<
  ConsoleService,
  | 'createRealm'
  | 'setRealmLifetime'
  | 'setRealmFlag'
  | 'clearRealmSecret'
  | 'removeRealm'
  | 'endRealmSessions'
  | 'revealGeneratedSecret'
  | 'listTokens'
  | 'revokeToken'
  | 'revokeManagementToken'
  | 'setValidator'
  | 'removeValidator'
  | 'listPendingRequests'
  | 'listActivity'
>;

export interface RealmsConsoleServiceDeps {
  pool: ManagerPool;
  activity: ActivityLog;
}

const action = (connectionId: string, target: string, summary: string): RealmAction => ({
  connectionId,
  target,
  summary,
});

const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/**
 * What a key change did to live sessions, from the reply's `ended_sessions` (issue 22 item 7;
 * absent from brokers that do not report it).
 */
function endedText(reply: Record<string, unknown>, what: string): string {
  const n = reply.ended_sessions;
  if (typeof n !== 'number' || n <= 0) return '';
  return ` ${n} session${n === 1 ? '' : 's'} that used the old ${what} ${n === 1 ? 'was' : 'were'} ended (${n === 1 ? 'it' : 'they'} must reconnect with the new one).`;
}

/** A fresh secret: 32 random bytes as lowercase hex (the §5 / §17.1 shape). */
export function generateSecretValue(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Builds the methods. Errors: those of `ManagerPool.get` / `ManagerClient` (unknown connection,
 * broker down or refusing), plus `SWB_ERR_VALIDATION` for inputs the catalogue cannot express.
 */
export function createRealmsConsoleService({
  pool,
  activity,
}: RealmsConsoleServiceDeps): RealmsServiceMethods {
  const send = (connectionId: string, body: { command: string } & Record<string, unknown>) =>
    pool.get(connectionId).command(body);

  return {
    createRealm: async ({
      connectionId,
      realm,
      authRequired,
      ephemeral,
      ttl,
      acceptanceRequired,
      tokenlessConsumers,
    }) => {
      const body: { command: string } & Record<string, unknown> = {
        command: 'add_realm',
        realm,
        required: authRequired,
      };
      if (ephemeral) {
        body.ephemeral = true;
        if (ttl) body.ttl = ttl;
      }
      if (acceptanceRequired !== undefined) body.require_acceptance = acceptanceRequired;
      if (tokenlessConsumers) body.allow_tokenless_consumers = true;
      await send(connectionId, body);
      const lifetime = ephemeral ? `ephemeral, ${ttl ?? 'default lifetime'}` : 'permanent';
      const consumers = !authRequired
        ? 'open to every client'
        : tokenlessConsumers
          ? 'token-less consumers allowed'
          : // A new realm has no pre-shared key yet: the badge says "need a token" too.
            'consumers need a token';
      return action(connectionId, realm, `Realm ${realm} created (${lifetime}, ${consumers}).`);
    },

    setRealmLifetime: async ({ connectionId, realm, ephemeral, ttl }) => {
      const body: { command: string } & Record<string, unknown> = {
        command: 'set_realm_lifetime',
        realm,
        ephemeral,
      };
      if (ephemeral && ttl) body.ttl = ttl;
      await send(connectionId, body);
      return action(
        connectionId,
        realm,
        ephemeral
          ? `Realm ${realm} now expires in ${ttl ?? 'the default lifetime'}.`
          : `Realm ${realm} is now permanent.`,
      );
    },

    setRealmFlag: async ({ connectionId, realm, flag, value }) => {
      if (flag === 'auth') {
        await send(connectionId, { command: 'set_realm_auth', realm, required: value });
        return action(
          connectionId,
          realm,
          `Realm ${realm}: authentication ${value ? 'required' : 'not required'}.`,
        );
      }
      if (flag === 'acceptance') {
        await send(connectionId, { command: 'set_realm_acceptance', realm, required: value });
        return action(
          connectionId,
          realm,
          `Realm ${realm}: producer acceptance ${value ? 'required' : 'not required'}.`,
        );
      }
      if (flag === 'tokenlessConsumers') {
        await send(connectionId, {
          command: 'set_realm_tokenless_consumers',
          realm,
          allow_tokenless_consumers: value,
        });
        return action(
          connectionId,
          realm,
          value
            ? `Realm ${realm}: consumers without a token or key allowed (reference mode).`
            : `Realm ${realm}: consumers need a token or key.`,
        );
      }
      const done = (): RealmAction =>
        action(
          connectionId,
          realm,
          `Realm ${realm}: pre-shared key ${value ? 'required' : 'not required'}.`,
        );
      // `set_realm_key` sets require_key only together with the key (an absent key clears it):
      // with a key set, only Switchboard's `set_realm_require_key` keeps it. Never rotate or
      // clear a live key for a switch: a rotation is the explicit Rotate action.
      const reply = await send(connectionId, { command: 'get' });
      const summary = toRealmList(connectionId, reply.settings).realms.find(
        (r) => r.name === realm,
      );
      if (!summary) throw new SwitchboardError('SWB_ERR_NOT_FOUND', `Realm ${realm} not found`);
      if (!summary.keyConfigured) {
        await send(connectionId, {
          command: 'set_realm_key',
          realm,
          key: null,
          require_key: value,
        });
        return done();
      }
      try {
        await send(connectionId, { command: 'set_realm_require_key', realm, require_key: value });
      } catch (error) {
        if (!isUnknownCommand(error)) throw error;
        throw new SwitchboardError(
          'SWB_ERR_VALIDATION',
          'This broker does not offer changing "require key" alone (set_realm_require_key): with a key set, its protocol changes the requirement only together with the key. Rotate the key to change it, or clear the key.',
        );
      }
      return done();
    },

    clearRealmSecret: async ({ connectionId, realm, kind }) => {
      const reply =
        kind === 'realmKey'
          ? await send(connectionId, { command: 'set_realm_key', realm, key: null })
          : await send(connectionId, {
              command: 'set_realm_manager_key',
              realm,
              manager_key: null,
            });
      const what = kind === 'realmKey' ? 'pre-shared key' : 'manager key';
      const ended = endedText(reply, what).replace(' with the new one', '');
      return action(connectionId, realm, `Realm ${realm}: ${what} cleared.${ended}`);
    },

    endRealmSessions: async ({ connectionId, realm }) => {
      const reply = await send(connectionId, { command: 'end_sessions', realm });
      const n = count(reply.ended_sessions);
      return action(
        connectionId,
        realm,
        n === 0
          ? `Realm ${realm}: no live session to end.`
          : `Realm ${realm}: ${n} session${n === 1 ? '' : 's'} ended; clients that still hold a valid credential reconnect.`,
      );
    },

    removeRealm: async ({ connectionId, realm, confirmName }) => {
      if (confirmName !== realm) {
        throw new SwitchboardError(
          'SWB_ERR_VALIDATION',
          `Type the realm's name (${realm}) to remove it`,
        );
      }
      const reply = await send(connectionId, { command: 'remove_realm', realm });
      return action(
        connectionId,
        realm,
        `Realm ${realm} removed (${count(reply.removed_tokens)} tokens revoked, ${count(reply.disconnected_sockets)} sockets disconnected).`,
      );
    },

    revealGeneratedSecret: async (input) => {
      const { connectionId, kind } = input;
      const secret = generateSecretValue();
      if (kind === 'managementToken') {
        if (!input.realmPrefix)
          throw new SwitchboardError('SWB_ERR_VALIDATION', 'realmPrefix is required');
        const body: { command: string } & Record<string, unknown> = {
          command: 'add_management_token',
          token: secret,
          realm_prefix: input.realmPrefix,
        };
        if (input.ephemeralOnly) body.ephemeral_only = true;
        if (input.maxTtl) body.max_ttl = input.maxTtl;
        await send(connectionId, body);
        return {
          connectionId,
          kind,
          target: input.realmPrefix,
          secret,
          summary: `Management token for realms under ${input.realmPrefix} created.`,
        };
      }
      const realm = input.realm;
      if (!realm) throw new SwitchboardError('SWB_ERR_VALIDATION', 'realm is required');
      let reply: Record<string, unknown>;
      if (kind === 'realmKey') {
        const body: { command: string } & Record<string, unknown> = {
          command: 'set_realm_key',
          realm,
          key: secret,
        };
        if (input.requireKey !== undefined) body.require_key = input.requireKey;
        reply = await send(connectionId, body);
      } else {
        reply = await send(connectionId, {
          command: 'set_realm_manager_key',
          realm,
          manager_key: secret,
        });
      }
      const what = kind === 'realmKey' ? 'pre-shared key' : 'manager key';
      return {
        connectionId,
        kind,
        target: realm,
        secret,
        summary: `New ${what} for realm ${realm}.${endedText(reply, what)}`,
      };
    },

    listTokens: async ({ connectionId }) => {
      const reply = await send(connectionId, { command: 'get' });
      return toTokenList(connectionId, reply.settings);
    },

    revokeToken: async ({ connectionId, tokenHash }) => {
      const reply = await send(connectionId, { command: 'revoke_token', token_hash: tokenHash });
      const revoked = Array.isArray(reply.revoked) ? reply.revoked.length : 0;
      return action(
        connectionId,
        tokenHash.slice(0, 12),
        `${revoked} token(s) revoked; their sessions are disconnected.`,
      );
    },

    revokeManagementToken: async ({ connectionId, tokenHash }) => {
      await send(connectionId, { command: 'revoke_management_token', token_hash: tokenHash });
      return action(connectionId, tokenHash.slice(0, 12), 'Management token revoked.');
    },

    setValidator: async ({ connectionId, scope, target, url, secret }) => {
      if (scope !== 'global' && !target) {
        throw new SwitchboardError('SWB_ERR_VALIDATION', `A ${scope} validator needs its ${scope}`);
      }
      const body: { command: string } & Record<string, unknown> = {
        command: 'set_external_auth',
        auth_url: url,
      };
      if (secret) body.auth_secret = secret;
      if (scope === 'realm') body.realm = target;
      if (scope === 'prefix') body.realm_prefix = target;
      await send(connectionId, body);
      const label = scope === 'global' ? 'global' : `${scope} ${target}`;
      return action(connectionId, target, `External validator (${label}) set.`);
    },

    removeValidator: async ({ connectionId, scope, target }) => {
      const body: { command: string } & Record<string, unknown> = {
        command: 'set_external_auth',
        auth_url: '',
      };
      if (scope === 'global') body.auth_secret = '';
      else if (scope === 'realm') body.realm = target;
      else body.realm_prefix = target;
      await send(connectionId, body);
      const label = scope === 'global' ? 'global' : `${scope} ${target}`;
      return action(connectionId, target, `External validator (${label}) removed.`);
    },

    listPendingRequests: ({ connectionId, realm, cursor, limit }) =>
      pendingPage(pool.get(connectionId), connectionId, { realm, cursor, limit }),

    listActivity: async (filter) => activity.query(filter),
  };
}
