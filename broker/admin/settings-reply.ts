/**
 * The replies and commits shared by the settings commands of management-commands.ts
 * (`spec/protocol-admin.md` §8.1, §8.4): `settingsReply` (the public or realm-scoped settings
 * view), `mutate` (a draft `auth` committed whole; invalid → 400) and `renameWithData`
 * (`rename_realm` with its data move, reverted when the data cannot move: 409 or 500).
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import type { AuthConfig } from '../auth/auth-schema';
import { closeForReconnect } from '../transport/reconnect-close';
import { CommandError, type CommandBody, type ManagerScope } from './command-types';
import type { Extras, ManagementServices, Result } from './management-services';
import { publicSettings, realmScopedSettings } from './public-settings';
import * as realmCommands from './realm-commands';
import type { RealmDataMover } from './realm-data-move';

/** `{ok, settings}` (admin) or `{ok, realm, settings: {realms: {…}}}` (realm scope), §8.1. */
export function settingsReply(
  services: ManagementServices,
  scope: ManagerScope,
  extras: Extras = {},
): Result {
  const auth = services.auth.config;
  if (scope.kind === 'realm') {
    return {
      ok: true,
      realm: scope.realm,
      settings: realmScopedSettings(auth, scope.realm),
      ...extras,
    };
  }
  return {
    ok: true,
    settings: publicSettings(auth, services.persistence(), services.namespaces()),
    ...extras,
  };
}

/** Runs a mutation on a draft `auth`; an invalid result is a 400, nothing is committed. */
export function mutate<R>(services: ManagementServices, fn: (draft: AuthConfig) => R): R {
  try {
    return services.auth.update(fn, 'command');
  } catch (err) {
    if (err instanceof SwitchboardError && err.code === 'SWB_ERR_VALIDATION') {
      throw new CommandError(400, err.message);
    }
    throw err;
  }
}

export const now = (s: ManagementServices) => (s.now ?? Date.now)();

/** Undoes a committed `rename_realm` whose data could not move (its tokens back included). */
function revertRename(
  services: ManagementServices,
  from: string,
  to: string,
  retargeted: readonly string[],
): void {
  const tokens = new Set(retargeted);
  services.auth.update((draft) => {
    if (!Object.prototype.hasOwnProperty.call(draft.realms, to)) return;
    if (Object.prototype.hasOwnProperty.call(draft.realms, from)) return;
    draft.realms[from] = draft.realms[to]!;
    delete draft.realms[to];
    for (const token of draft.tokens) {
      if (token.realm === to && tokens.has(token.token)) token.realm = from;
    }
  }, 'command');
}

/** `rename_realm` after validation: config, sockets, then the realm's data (or revert). */
export async function renameWithData(
  services: ManagementServices,
  body: CommandBody,
  scope: ManagerScope,
  from: string,
  to: string,
): Promise<Result> {
  const data = services.realmData;
  const bound = services.lifecycle.socketsOf(from);
  const outcome = mutate(services, (d) => realmCommands.renameRealm(d, body));
  // §8.4 note (harden): sockets bound to the old name are ended so they re-authenticate:
  // at the transport level, so stock clients reconnect by themselves (issue 19).
  const sockets = new Set([...bound, ...services.lifecycle.socketsOf(from)]);
  for (const socket of sockets) closeForReconnect(socket);
  const disconnected = sockets.size;
  if (!data) return settingsReply(services, scope, { disconnected_sockets: disconnected });
  let moved: Awaited<ReturnType<RealmDataMover['move']>>;
  try {
    moved = await data.move(from, to);
  } catch (err) {
    revertRename(services, from, to, outcome.retargeted ?? []);
    services.logger.error({ err, from, to }, 'realm data not moved; rename reverted');
    throw new CommandError(500, `realm data not moved: ${(err as Error).message}`);
  }
  if (moved === null) {
    revertRename(services, from, to, outcome.retargeted ?? []);
    throw new CommandError(409, 'target realm already holds stored data');
  }
  return settingsReply(services, scope, { disconnected_sockets: disconnected, moved });
}
