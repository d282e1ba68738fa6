/**
 * `AUTH_MANAGEMENT_COMMAND` (`spec/protocol-admin.md` §8.1): verify the signed proof (§6),
 * run the command of the catalogue, answer.
 *
 * - Proof: admin tokens first; for the four realm-scopable commands (§6.5) the manager key of
 *   `body.realm` (a non-empty string other than `*`/`default`) is tried next.
 * - Privilege: a realm-scoped proof runs only the four realm-scopable commands; anything else
 *   is 401 (the verifier never grants a realm scope for them).
 * - Replies: through the ack when given. Without one (the §8.1 quirk): synchronous commands
 *   emit `AUTH_MANAGEMENT_RESULT` even when `ok:false`; asynchronous commands emit
 *   `AUTH_MANAGEMENT_RESULT` or `AUTH_MANAGEMENT_FAIL` by `ok`; proof failures emit
 *   `AUTH_MANAGEMENT_FAIL`. Async exceptions → `{ok:false, code:500, message}`.
 * Logged per command: name, scope and outcome — never the body's secrets.
 */
import { SignedAction } from '../../shared/admin-signature';
import { Protocol, ServerEvent, type ManagementReply } from '../../shared/protocol-events';
import { CommandError, type CommandBody } from '../admin/command-types';
import { REALM_SCOPABLE, commandSpec } from '../admin/management-commands';
import { signedSize, verifyProof, type ProofResult } from '../auth/proof-verifier';
import type { BrokerSocket } from '../transport/socket-types';
import type { HandlerContext } from './handler-context';

type Ack = ((reply: unknown) => void) | undefined;

function send(socket: BrokerSocket, reply: ManagementReply, ack: Ack, asFailure: boolean): void {
  if (ack) {
    ack(reply);
    return;
  }
  socket.emit(
    asFailure ? ServerEvent.AUTH_MANAGEMENT_FAIL : ServerEvent.AUTH_MANAGEMENT_RESULT,
    reply,
  );
}

function failure(err: unknown): { ok: false; code: number; message: string } {
  if (err instanceof CommandError) return { ok: false, code: err.code, message: err.message };
  return { ok: false, code: 500, message: (err as Error)?.message ?? 'Internal error' };
}

/** The realm whose manager key may sign this command, if any (§6.5). */
function scopableRealm(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { command, realm } = body as CommandBody;
  if (typeof command !== 'string' || !REALM_SCOPABLE.has(command)) return undefined;
  if (typeof realm !== 'string' || realm === '') return undefined;
  if (realm === Protocol.ADMIN_REALM || realm === Protocol.DEFAULT_REALM) return undefined;
  return realm;
}

export function handleManagementCommand(
  ctx: HandlerContext,
  socket: BrokerSocket,
  envelope: unknown,
  ack: Ack,
): void {
  const rawBody = (envelope as { body?: unknown } | null)?.body;
  // Asynchronous only for the cluster-wide nonce claim (§6.4); never rejects.
  void verifyProof(ctx, SignedAction.AUTH_MANAGEMENT_COMMAND, envelope, {
    realm: scopableRealm(rawBody),
  })
    .then((verdict) => verified(ctx, socket, envelope, ack, verdict))
    .catch((err: unknown) => ctx.logger.error({ err }, 'management command failed'));
}

function verified(
  ctx: HandlerContext,
  socket: BrokerSocket,
  envelope: unknown,
  ack: Ack,
  verdict: ProofResult,
): void {
  const services = ctx.management;
  if (!verdict.ok) {
    ctx.logger.warn({ socket: socket.id, reason: verdict.message }, 'management proof refused');
    send(socket, verdict, ack, true);
    return;
  }
  ctx.limits.creditSignedEvent(socket, signedSize(envelope));
  const body: CommandBody =
    typeof verdict.body === 'object' && verdict.body !== null && !Array.isArray(verdict.body)
      ? (verdict.body as CommandBody)
      : {};
  const name = body.command;
  const spec = commandSpec(name);
  const scope = verdict.scope;
  const log = {
    socket: socket.id,
    command: typeof name === 'string' ? name.slice(0, 64) : null,
    scope: scope.kind,
  };
  if (!spec) {
    ctx.logger.warn(log, 'unknown management command');
    send(socket, { ok: false, code: 400, message: 'unknown management command' }, ack, false);
    return;
  }
  if (scope.kind === 'realm' && spec.privilege !== 'A/R') {
    send(socket, { ok: false, code: 401, message: 'Invalid manager proof' }, ack, true);
    return;
  }
  Promise.resolve()
    .then(() => spec.run(services, body, scope))
    .then(
      (result) => result as ManagementReply,
      (err: unknown) => {
        if (!(err instanceof CommandError))
          ctx.logger.error({ ...log, err }, 'management command failed');
        return failure(err);
      },
    )
    .then((reply) => {
      const level = spec.polled && reply.ok ? 'debug' : 'info';
      ctx.logger[level](
        { ...log, ok: reply.ok, code: reply.ok ? 200 : reply.code },
        'management command',
      );
      // §8.1 quirk: settings commands answer AUTH_MANAGEMENT_RESULT even when ok is false.
      send(socket, reply, ack, spec.async && !reply.ok);
    })
    .catch((err: unknown) => ctx.logger.error({ err }, 'management reply failed'));
}
