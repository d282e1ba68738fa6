/**
 * What every `switchboard-admin` sub-command works with: the connection, the credential, the
 * parsed options and the output, plus the errors that decide the exit code.
 */
import type { AdminConnection, Reply } from './connection';
import type { Credential } from './credentials';
import { isoTimes } from './format';

/** Wrong usage (exit code 2). */
export class UsageError extends Error {}
/** The broker refused (exit code 1); carries its reply. */
export class RefusedError extends Error {
  constructor(readonly reply: Reply) {
    super(`${reply.code ?? '?'} ${reply.message ?? 'refused'}`);
  }
}

export interface CliContext {
  conn: AdminConnection;
  credential: Credential;
  json: boolean;
  /** Parsed option values (`--realm`, `--ttl`, …). */
  opts: Record<string, string | boolean | undefined>;
  out(text: string): void;
  /** Progress lines (stderr). */
  progress(text: string): void;
}

/** The reply when `ok`. @throws RefusedError otherwise. */
export function ensure(reply: Reply): Reply {
  if (!reply.ok) throw new RefusedError(reply);
  return reply;
}

/** Sends one signed management command. @throws RefusedError when the broker refuses it. */
export async function run(
  c: CliContext,
  body: Record<string, unknown>,
  timeoutMs?: number,
): Promise<Reply> {
  return ensure(await c.conn.command(c.credential.secret, body, timeoutMs));
}

/** `value`. @throws UsageError naming `what` when it is missing. */
export function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`${what} is required`);
  return value;
}

/** The string option `name`, if given. */
export function str(c: CliContext, name: string): string | undefined {
  const v = c.opts[name];
  return typeof v === 'string' ? v : undefined;
}

/** Prints `reply` as JSON (times as ISO strings) with `--json`, else what `human` renders. */
export function print(c: CliContext, reply: unknown, human: () => string): void {
  c.out(c.json ? JSON.stringify(isoTimes(reply), null, 2) : human());
}
