/**
 * Who an authenticated MQTT client is, kept per aedes client by `MqttAuth` (mqtt-auth.ts) and
 * stored with a will (stored-persistence.ts); its own module so the persistence layers can name
 * it without importing the auth mapping that uses them.
 */
import type { SessionCredential } from '../auth/session-credential';

/** What an authenticated MQTT client is (kept per aedes client). */
export interface MqttIdentity {
  realm: string;
  role: string;
  /** The id the client chose (without the realm scope). */
  clientId: string;
  /** SHA-256 of the static token it used, for revocation; null otherwise. */
  tokenHash: string | null;
  /**
   * False when admitted without credentials (auth off, a realm with `required: false`, or a
   * token-less consumer of a realm with `allow_tokenless_consumers`).
   */
  authenticated: boolean;
  /**
   * The credential its rate-limit buckets are keyed by (`auth/rate-credential.ts`), shared with
   * the socket.io sessions of the same token; absent ⇒ keyed by realm and client IP.
   */
  rateKey?: string;
  /**
   * What admitted the client (a JWT with its expiry, a realm key, …), so the session ends when
   * it expires or changes (issue 20); absent when admitted without a credential. Not kept with
   * a stored will (restored wills are judged by `stillValid`).
   */
  credential?: SessionCredential | null;
}
