/**
 * Calls a dangerous ConsoleApi method the way the host requires (`shared/console-api-confirm.ts`):
 * first `confirmCall` for exactly this call, then the call with the minted `confirmation`. Use it
 * only from the handler of the operator's own confirmation (a Confirm button, a typed name, an
 * approval shortcut): that is the gesture the token stands for. Calls that need no confirmation
 * (`decideRequest` rejecting) go straight through.
 */
import type { ConsoleApi, MethodInput, MethodOutput, Result } from '../../../shared/console-api';
import { needsConfirmation, type ConfirmedMethod } from '../../../shared/console-api-confirm';

export async function confirmedCall<M extends ConfirmedMethod>(
  api: ConsoleApi,
  method: M,
  input: MethodInput<M>,
): Promise<Result<MethodOutput<M>>> {
  const call = api[method] as unknown as (
    input: Record<string, unknown>,
  ) => Promise<Result<MethodOutput<M>>>;
  if (!needsConfirmation(method, input)) return call(input as Record<string, unknown>);
  const minted = await api.confirmCall({ method, input: input as Record<string, unknown> });
  if (!minted.ok) return minted;
  return call({ ...input, confirmation: minted.value.confirmation });
}
