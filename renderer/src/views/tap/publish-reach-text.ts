/**
 * A publisher form's outcome, and who a test message reached in words (trial finding 23), for
 * both publishers: "no subscriber
 * received it" when the broker lists nobody subscribed, the count otherwise, and a realm the
 * broker's settings do not name. Empty when the broker does not tell (the result's fields are
 * null).
 */
import type { PublishResult } from '../../../../shared/console-api-tap';
import type { ErrorInfo } from '../../../../shared/error-catalogue';

/**
 * The one outcome a publisher form shows, success or failure, replaced on each attempt and
 * shown only while the form still holds the `fields` it was sent with (trial finding 22).
 */
export type PublishOutcome =
  { fields: string; ok: true; text: string } | { fields: string; ok: false; error: ErrorInfo };

export function reachText(
  result: Pick<PublishResult, 'realm' | 'subscribers' | 'realmConfigured'>,
): string {
  const parts: string[] = [];
  if (result.subscribers === 0) parts.push('no subscriber received it');
  else if (result.subscribers !== null) {
    const n = result.subscribers;
    parts.push(`${n} subscriber${n === 1 ? '' : 's'} online`);
  }
  if (result.realmConfigured === false) {
    parts.push(`realm ${result.realm} is not configured on this broker`);
  }
  return parts.length === 0 ? '' : ` — ${parts.join('; ')}`;
}
