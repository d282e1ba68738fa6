/**
 * The realm E2EE policy for MQTT publishes (`spec/protocol-extensions.md` §1.6, §2.6 with Note
 * 2-E's shape; Switchboard decision, docs/mqtt.md "End-to-end encrypted realms"). The spec
 * states the policy for `PRODUCE`; an MQTT device publishing into the same topic space would
 * otherwise be a way around it. Under `required`, a PUBLISH (and a will) is accepted only when
 * its payload is the JSON text of the encrypted message shape tyo-mq's E2EE helpers produce,
 * `{"enc": {"alg": "…", …}, "message": "<ciphertext>"}`; anything else is refused as a
 * cleartext `PRODUCE` is. As for `PRODUCE`, the broker cannot tell ciphertext from text.
 */
import { E2eePolicy } from '../../shared/protocol-extensions';
import type { AuthState } from '../auth/auth-state';
import { looksEncrypted, realmE2eePolicy } from '../auth/e2ee-policy';

/** The payload's JSON value; null when it is not JSON text of an object. */
function parsedObject(payload: Buffer | string): unknown {
  const text = typeof payload === 'string' ? payload : payload.toString('utf8');
  // Cheap refusal of what cannot be a JSON object, before a parse.
  if (!/^\s*\{/.test(text)) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Whether `realm`'s policy refuses this MQTT payload as cleartext. */
export function mqttCleartextRefused(
  auth: AuthState,
  realm: string,
  payload: Buffer | string,
): boolean {
  // Most realms have no policy: no payload is parsed for them.
  if (realmE2eePolicy(auth, realm) !== E2eePolicy.REQUIRED) return false;
  return !looksEncrypted(parsedObject(payload));
}
