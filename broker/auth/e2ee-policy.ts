/**
 * The realm E2EE policy (`spec/protocol-extensions.md` §1.6, §2.6): `auth.realms.<realm>.e2ee`
 * read from the live auth state on every event, whether or not `auth.enabled` is set. Under
 * `required`, a cleartext `PRODUCE` (a reassembled `PRODUCE_CHUNK` included) is refused with
 * `ERROR {message:"Realm '<realm>' requires end-to-end encrypted messages", code:-6}` and is
 * neither delivered, stored nor relayed.
 *
 * Note 2-E (Fix): "encrypted" means `enc` is a non-null object with a string `alg` and
 * `message` is a string, not merely a truthy `enc`. The broker still cannot verify that a
 * payload really is ciphertext (docs/e2ee.md says so to operators).
 */
import { E2eePolicy } from '../../shared/protocol-extensions';
import type { AuthState } from './auth-state';

export type E2eePolicyValue = (typeof E2eePolicy)[keyof typeof E2eePolicy] | 'off';

/** §1.6: the realm's policy; any value but `opportunistic` or `required` means off. */
export function realmE2eePolicy(auth: AuthState, realm: string): E2eePolicyValue {
  const value = auth.realm(realm)?.e2ee;
  return value === E2eePolicy.OPPORTUNISTIC || value === E2eePolicy.REQUIRED ? value : 'off';
}

/**
 * Note 2-E: whether `payload` has the shape of an encrypted message, `{enc: {alg, …}, message:
 * "<ciphertext>"}` — a `PRODUCE` payload, an in-process `publish` payload or an MQTT PUBLISH's
 * parsed JSON. Anything else (a string, an array, null) does not.
 */
export function looksEncrypted(payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
  const { enc, message } = payload as { enc?: unknown; message?: unknown };
  return (
    typeof enc === 'object' &&
    enc !== null &&
    !Array.isArray(enc) &&
    typeof (enc as { alg?: unknown }).alg === 'string' &&
    typeof message === 'string'
  );
}

/** §2.6: whether `realm`'s policy refuses this message (see `looksEncrypted`) as cleartext. */
export function cleartextRefused(auth: AuthState, realm: string, payload: unknown): boolean {
  return realmE2eePolicy(auth, realm) === E2eePolicy.REQUIRED && !looksEncrypted(payload);
}
