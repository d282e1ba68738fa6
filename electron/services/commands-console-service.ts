/**
 * The Command console part of the ConsoleService (`shared/console-api-commands.ts`, issue 27):
 * any management command of the catalogue (`shared/management-command-catalogue.ts`), its
 * parameters validated against the catalogue, signed by the connection's ManagerClient
 * (`spec/protocol-admin.md` §6), shown masked, then sent exactly as signed.
 *
 * Why the preview holds the signed envelope: what runs is what the operator saw — same body,
 * same nonce and timestamp — and it can run once (the broker claims the nonce anyway). The
 * envelope and its secrets stay in this process until sent or expired.
 *
 * Runs go through the audited pool's `recorded` when there is one (Activity keeps what the
 * audit rules allow: secrets as `<set>`); the last `COMMAND_HISTORY_SIZE` runs per connection
 * are kept here, in memory, secrets masked.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { SignedAction, stableJson, type SignedEnvelope } from '../../shared/admin-signature';
import {
  COMMAND_HISTORY_SIZE,
  COMMAND_PREVIEW_TTL_MS,
  type CommandPreview,
  type CommandRunEntry,
  type CommandSigner,
  type CommandsMethods,
} from '../../shared/console-api-commands';
import { SwitchboardError } from '../../shared/error-catalogue';
import {
  managementCommand,
  maskSecretParams,
  SECRET_MASK,
  type CommandParam,
  type ManagementCommandInfo,
} from '../../shared/management-command-catalogue';
import type { ActivityOrigin } from '../../shared/console-api-activity';
import { formatIssues } from './console-dispatch';
import { brokerError, type ManagerClient, type ManagerReply } from './manager-client';

type Methods = typeof CommandsMethods;

/**
 * `realm_keys` with `reveal` answers with every realm's keys (docs/management.md): the renderer
 * must never see them, so the reply it gets shows them as `SECRET_MASK` (the hashes stay).
 */
export function maskRevealedKeys(command: string, reply: ManagerReply): ManagerReply {
  if (command !== 'realm_keys' || typeof reply.realms !== 'object' || reply.realms === null) {
    return reply;
  }
  const realms: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(reply.realms as Record<string, unknown>)) {
    const copy = { ...(entry as Record<string, unknown>) };
    for (const k of ['key', 'manager_key']) {
      if (typeof copy[k] === 'string') copy[k] = SECRET_MASK;
    }
    realms[name] = copy;
  }
  return { ...reply, realms };
}
type Input<M extends keyof Methods> = z.infer<Methods[M]['input']>;
type Output<M extends keyof Methods> = z.infer<Methods[M]['output']>;

/** The Command console methods, as `createConsoleService` spreads them. */
export type CommandsService = { [M in keyof Methods]: (input: Input<M>) => Promise<Output<M>> };

/** Previews kept unsent at most (the oldest are dropped: a page previewing in a loop). */
const MAX_PREVIEWS = 32;

export interface CommandsServiceDeps {
  pool: {
    get(connectionId: string): Pick<ManagerClient, 'signCommand' | 'sendSigned'>;
    /** The audited pool's recorder (activity-log.ts); absent: runs are not audited. */
    recorded?<T>(
      connectionId: string,
      origin: ActivityOrigin,
      action: string,
      body: Record<string, unknown>,
      call: () => Promise<T>,
    ): Promise<T>;
  };
  /** Who signs for a connection (its credential's kind); default a global admin. */
  signerOf?: (connectionId: string) => CommandSigner;
  now?: () => number;
}

interface Pending {
  connectionId: string;
  command: string;
  paramsKey: string;
  envelope: SignedEnvelope;
  expiresAt: number;
}

function paramSchema(param: CommandParam): z.ZodType {
  switch (param.type) {
    case 'string':
      return z.string().max(65_535);
    case 'number':
      return z.number().finite();
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum(param.options as [string, ...string[]]);
    case 'json':
      return z.unknown();
  }
}

/**
 * The catalogue entry of `command` and `params` checked against it.
 * @throws SwitchboardError `SWB_ERR_VALIDATION`: not in the catalogue, an unknown parameter, a
 *   missing required one, a wrong type.
 */
export function checkCommand(
  command: string,
  params: Record<string, unknown>,
): ManagementCommandInfo {
  const info = managementCommand(command);
  if (!info) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Unknown management command: ${JSON.stringify(command.slice(0, 64))} is not in the catalogue`,
    );
  }
  const shape: Record<string, z.ZodType> = {};
  for (const p of info.params)
    shape[p.name] = p.required ? paramSchema(p) : paramSchema(p).optional();
  const parsed = z.object(shape).strict().safeParse(params);
  if (!parsed.success) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Invalid parameters for ${command}: ${formatIssues(parsed.error.issues)}`,
    );
  }
  return info;
}

/** JSON with object keys sorted (the order STABLE_JSON signs), 2-space indent. */
function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2);
}

function warningFor(
  info: ManagementCommandInfo,
  params: Record<string, unknown>,
  signer: CommandSigner,
): string | null {
  if (signer.kind !== 'realm-manager') return null;
  if (info.scope === 'admin') {
    return `This connection signs with the manager key of ${signer.realm}: ${info.name} needs the global admin token, so the broker will refuse it (401).`;
  }
  if (typeof params.realm === 'string' && params.realm !== signer.realm) {
    return `This connection signs with the manager key of ${signer.realm}: the broker checks it against the realm the command names, so ${params.realm} will be refused (401).`;
  }
  return null;
}

const replyCode = (reply: ManagerReply): number | null =>
  reply.ok ? null : typeof reply.code === 'number' ? reply.code : 500;

/** Builds the methods. Errors: see `CommandsMethods`. */
export function createCommandsService(deps: CommandsServiceDeps): CommandsService {
  const { pool } = deps;
  const now = deps.now ?? Date.now;
  const signerOf = deps.signerOf ?? (() => ({ kind: 'admin', realm: null }) as CommandSigner);
  const record =
    pool.recorded?.bind(pool) ??
    (<T>(_c: string, _o: ActivityOrigin, _a: string, _b: unknown, call: () => Promise<T>) =>
      call());
  const previews = new Map<string, Pending>();
  const history = new Map<string, CommandRunEntry[]>();

  const remember = (connectionId: string, entry: CommandRunEntry): void => {
    const list = [entry, ...(history.get(connectionId) ?? [])].slice(0, COMMAND_HISTORY_SIZE);
    history.set(connectionId, list);
  };

  const take = (input: Input<'commandRun'>): Pending => {
    const pending = previews.get(input.previewId);
    previews.delete(input.previewId);
    const again = 'preview the command again, then send it';
    if (!pending || pending.expiresAt <= now()) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        `The preview is unknown, sent or expired: ${again}`,
      );
    }
    if (
      pending.connectionId !== input.connectionId ||
      pending.command !== input.command ||
      pending.paramsKey !== stableJson(input.params)
    ) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        `The preview was for another call: ${again}`,
      );
    }
    return pending;
  };

  return {
    commandPreview: async ({ connectionId, command, params }): Promise<CommandPreview> => {
      const info = checkCommand(command, params);
      const client = pool.get(connectionId);
      const envelope = client.signCommand({ ...params, command });
      const signedAt = Number(envelope.proof.timestamp);
      const expiresAt = signedAt + COMMAND_PREVIEW_TTL_MS;
      while (previews.size >= MAX_PREVIEWS) previews.delete(previews.keys().next().value as string);
      const previewId = randomBytes(12).toString('base64url');
      previews.set(previewId, {
        connectionId,
        command,
        paramsKey: stableJson(params),
        envelope,
        expiresAt,
      });
      const signer = signerOf(connectionId);
      const shown = {
        body: { ...maskSecretParams(command, params), command },
        proof: { timestamp: SECRET_MASK, nonce: SECRET_MASK, signature: SECRET_MASK },
      };
      return {
        previewId,
        connectionId,
        command,
        event: SignedAction.AUTH_MANAGEMENT_COMMAND,
        envelopeText: sortedJson(shown),
        signedAt,
        expiresAt,
        destructive: info.destructive,
        signer,
        warning: warningFor(info, params, signer),
      };
    },

    commandRun: async (input) => {
      const { connectionId, command, params } = input;
      checkCommand(command, params);
      const { envelope } = take(input);
      const client = pool.get(connectionId);
      const started = performance.now();
      const base = {
        id: randomBytes(9).toString('base64url'),
        at: now(),
        command,
        params: maskSecretParams(command, params),
      };
      const elapsed = (): number => Math.max(0, Math.round(performance.now() - started));
      let reply: ManagerReply | null = null;
      try {
        await record(connectionId, 'operator', command, envelope.body, async () => {
          reply = await client.sendSigned(envelope);
          // A refusal is recorded as one in Activity, and still answered as a reply here.
          if (!reply.ok) throw brokerError(command, reply);
          return reply;
        });
      } catch (error) {
        if (!reply) {
          const message = error instanceof Error ? error.message : String(error);
          remember(connectionId, {
            ...base,
            ok: false,
            code: null,
            message,
            durationMs: elapsed(),
          });
          throw error;
        }
      }
      const got = reply as unknown as ManagerReply;
      const entry: CommandRunEntry = {
        ...base,
        ok: got.ok === true,
        code: replyCode(got),
        message: got.ok ? null : String(got.message ?? 'no reason given'),
        durationMs: elapsed(),
      };
      remember(connectionId, entry);
      return {
        connectionId,
        reply: maskRevealedKeys(command, got),
        entry,
        unsupported: entry.code === 400 && /unknown management command/i.test(entry.message ?? ''),
      };
    },

    commandHistory: async ({ connectionId }) => ({
      connectionId,
      entries: history.get(connectionId) ?? [],
    }),
  };
}
