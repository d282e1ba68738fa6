/**
 * Confirmation tokens for the ConsoleApi's dangerous calls (issue 22 item 22, defence in depth
 * behind the Content-Security-Policy): approving an authorization request, revoking a token or
 * a management token, removing a realm, discarding dead letters, force-closing a client,
 * purging a queue, moving a queue's messages, releasing in-flight messages, deleting retained
 * messages, revoking an E2EE identity's key, running a destructive command from the Command
 * console and applying a definitions import each need a `confirmation`
 * minted by the host (`confirmCall`) for exactly that call — same method, same arguments —
 * fresh (≤ `CONFIRMATION_TTL_MS`) and used once. The console's UI asks for one when the operator
 * confirms the action; a script that calls the API directly without one is refused with
 * `SWB_ERR_CONFIRMATION_REQUIRED`. In the desktop app the main process mints one only after the
 * operator confirms a native dialog, which no page script can click.
 */
import { z } from 'zod';
import { managementCommand } from './management-command-catalogue';

/** The calls that need a confirmation (`decideRequest` only when it approves). */
export const CONFIRMED_METHODS = [
  'decideRequest',
  'revokeToken',
  'revokeManagementToken',
  'removeRealm',
  'discardDeadLetters',
  'closeClient',
  'purgeQueue',
  'moveQueue',
  'releaseInFlight',
  'deleteRetained',
  'revokeIdentityKey',
  'commandRun',
  'applyDefinitions',
] as const;
export type ConfirmedMethod = (typeof CONFIRMED_METHODS)[number];

/** How long a minted confirmation stays valid, ms. */
export const CONFIRMATION_TTL_MS = 60_000;

/** The input field that carries a confirmation; the transport removes it before validation. */
export const CONFIRMATION_FIELD = 'confirmation';

/** Whether `method` called with `input` needs a confirmation. */
export function needsConfirmation(method: string, input: unknown): boolean {
  if (!(CONFIRMED_METHODS as readonly string[]).includes(method)) return false;
  // The Command console confirms what its catalogue marks destructive (an unknown one too).
  if (method === 'commandRun') {
    return (
      managementCommand((input as { command?: unknown } | null)?.command)?.destructive !== false
    );
  }
  if (method !== 'decideRequest') return true;
  // A rejection takes nothing away: only an approval grants access.
  return (input as { approved?: unknown } | null)?.approved !== false;
}

/** A confirmation as `confirmCall` returns it. `expiresAt` is epoch ms. */
export const ConfirmationSchema = z.object({
  confirmation: z.string(),
  expiresAt: z.number(),
});
export type Confirmation = z.infer<typeof ConfirmationSchema>;

export const ConfirmMethods = {
  /**
   * Mints the confirmation of one call: `method` with exactly `input` (without `confirmation`),
   * valid for `CONFIRMATION_TTL_MS`, usable once. Errors: `SWB_ERR_VALIDATION` (`input` is not a
   * valid input of `method`), `SWB_ERR_CONFIRMATION_REQUIRED` (the desktop app's dialog was
   * cancelled), `SWB_ERR_UNKNOWN_METHOD` (a service called without a transport).
   */
  confirmCall: {
    input: z
      .object({
        method: z.enum(CONFIRMED_METHODS),
        input: z.record(z.string(), z.unknown()),
      })
      .strict(),
    output: ConfirmationSchema,
  },
} as const;
