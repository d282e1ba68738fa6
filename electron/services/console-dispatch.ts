/**
 * Transport-independent ConsoleApi call handling, shared by the Electron IPC handler and the
 * web host: checks the method name, validates the input with the method's zod schema, runs the
 * service and turns every outcome into a `Result` (`{ok:true,value}` or `{ok:false,error}`).
 *
 * Source: ARCHITECTURE §1 ("Electron IPC and the web host are two thin transports of that one
 * contract") and `shared/error-catalogue.ts`.
 */
import {
  ConsoleMethods,
  type ConsoleMethodName,
  type ConsoleService,
  type Result,
} from '../../shared/console-api';
import {
  CONFIRMATION_FIELD,
  needsConfirmation,
  type ConfirmedMethod,
} from '../../shared/console-api-confirm';
import { errorInfo, SwitchboardError, type ErrorInfo } from '../../shared/error-catalogue';
import type { ConfirmationGate } from './confirmation-gate';

/** True when `name` is an own method of the contract (not `toString`, `__proto__`, …). */
export function isConsoleMethodName(name: unknown): name is ConsoleMethodName {
  return typeof name === 'string' && Object.hasOwn(ConsoleMethods, name);
}

/** Optional sink for unexpected errors, which are answered as a generic `SWB_ERR_INTERNAL`. */
export type InternalErrorSink = (error: unknown, method: string) => void;

/**
 * Calls `method` on `service` with `input`. Never throws. Errors:
 * `SWB_ERR_UNKNOWN_METHOD` (not in `ConsoleMethods`), `SWB_ERR_VALIDATION` (input schema),
 * `SWB_ERR_CONFIRMATION_REQUIRED` (with a `gate`: a dangerous call without its confirmation),
 * any `SwitchboardError` the service throws, else `SWB_ERR_INTERNAL` (details only to `onInternal`).
 *
 * `gate`: the transport's confirmation tokens (confirmation-gate.ts). Both transports pass one;
 * without it (a service embedded in a test) `confirmCall` is unknown and nothing is checked.
 */
export async function dispatchConsoleCall(
  service: ConsoleService,
  method: unknown,
  rawInput: unknown,
  onInternal?: InternalErrorSink,
  gate?: ConfirmationGate,
): Promise<Result<unknown>> {
  if (!isConsoleMethodName(method) || (method === 'confirmCall' && !gate)) {
    return {
      ok: false,
      error: errorInfo('SWB_ERR_UNKNOWN_METHOD', `Unknown console method: ${describe(method)}`),
    };
  }
  const { input, confirmation } = splitConfirmation(rawInput ?? {});
  const parsed = ConsoleMethods[method].input.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      error: errorInfo(
        'SWB_ERR_VALIDATION',
        `Invalid input for ${method}: ${formatIssues(parsed.error.issues)}`,
      ),
    };
  }
  try {
    if (method === 'confirmCall') {
      const request = parsed.data as { method: ConfirmedMethod; input: Record<string, unknown> };
      return { ok: true, value: await gate!.mint(request.method, request.input) };
    }
    if (gate && needsConfirmation(method, parsed.data)) gate.consume(method, input, confirmation);
    const run = service[method] as (input: unknown) => Promise<unknown>;
    const value = await run.call(service, parsed.data);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: toErrorInfo(error, method, onInternal) };
  }
}

/** Takes the `confirmation` field off an input object (other inputs pass unchanged). */
function splitConfirmation(input: unknown): { input: unknown; confirmation: unknown } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { input, confirmation: undefined };
  }
  if (!Object.hasOwn(input, CONFIRMATION_FIELD)) return { input, confirmation: undefined };
  const { [CONFIRMATION_FIELD]: confirmation, ...rest } = input as Record<string, unknown>;
  return { input: rest, confirmation };
}

/** Maps a thrown value to an `ErrorInfo`; only `SwitchboardError` messages reach the client. */
export function toErrorInfo(
  error: unknown,
  method: string,
  onInternal?: InternalErrorSink,
): ErrorInfo {
  if (error instanceof SwitchboardError) return error.toInfo();
  onInternal?.(error, method);
  return errorInfo('SWB_ERR_INTERNAL');
}

/** `a.b: message; c: message` — short enough for a UI toast, precise enough to fix the call. */
export function formatIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): string {
  return issues
    .slice(0, 5)
    .map(
      (issue) =>
        `${issue.path.length ? issue.path.map(String).join('.') : '(input)'}: ${issue.message}`,
    )
    .join('; ');
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 64)) : typeof value;
}
