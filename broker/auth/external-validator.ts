/**
 * External token validators (`auth_url`): which one applies to a realm hint, and the HTTP call.
 *
 * Source: `spec/protocol-admin.md` §4.4 with its hardening notes and §18 item 4: one validator
 * is chosen, most specific first (realm scope, longest matching prefix, global) with no fall-back
 * from a scoped validator to another one; a scoped validator without its own secret gets no
 * secret header (never the global `auth_secret`); a 5 s total timeout, a 64 KiB response cap,
 * no redirects (a 3xx is a non-2xx answer); results out of scope, for realm `*` or with a role
 * outside the five roles are refused.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Protocol } from '../../shared/protocol-events';
import { ROLES, type AuthConfig } from './auth-schema';

/** Total time allowed for one validation call, connect to last byte (ms). */
export const VALIDATOR_TIMEOUT_MS = 5_000;
/** Largest validator response read (bytes); a longer one fails the validation. */
export const VALIDATOR_MAX_RESPONSE_BYTES = 64 * 1024;

export type ValidatorScope =
  { kind: 'realm'; realm: string } | { kind: 'prefix'; prefix: string } | { kind: 'global' };

export interface ValidatorTarget {
  url: string;
  /** Sent as `x-mq-auth-secret` when set. */
  secret: string | undefined;
  scope: ValidatorScope;
}

/** The validator for `hint` (§4.4 resolution), or null when none is configured for it. */
export function resolveValidator(
  auth: Readonly<AuthConfig>,
  hint: string | undefined,
): ValidatorTarget | null {
  if (hint) {
    const realm = Object.prototype.hasOwnProperty.call(auth.realms, hint)
      ? auth.realms[hint]
      : undefined;
    if (realm?.auth_url) {
      return {
        url: realm.auth_url,
        secret: realm.auth_secret,
        scope: { kind: 'realm', realm: hint },
      };
    }
    let best: AuthConfig['external_validators'][number] | undefined;
    for (const v of auth.external_validators) {
      if (
        hint.startsWith(v.realm_prefix) &&
        v.realm_prefix.length > (best?.realm_prefix.length ?? -1)
      ) {
        best = v;
      }
    }
    if (best) {
      return {
        url: best.auth_url,
        secret: best.auth_secret,
        scope: { kind: 'prefix', prefix: best.realm_prefix },
      };
    }
  }
  if (auth.auth_url)
    return { url: auth.auth_url, secret: auth.auth_secret, scope: { kind: 'global' } };
  return null;
}

/** Whether a validator answer's realm is one this validator may grant. */
function inScope(scope: ValidatorScope, realm: string): boolean {
  if (realm === Protocol.ADMIN_REALM) return false;
  if (scope.kind === 'realm') return realm === scope.realm;
  if (scope.kind === 'prefix') return realm.startsWith(scope.prefix);
  return true;
}

/**
 * Asks `target` about `token`, giving up after `timeoutMs` (default `VALIDATOR_TIMEOUT_MS`, the
 * spec's 5 s). Resolves with `{realm, role}`, or null when the validator says
 * no (non-2xx, `valid:false`/`ok:false`, missing fields, out of scope, unknown role).
 * @throws Error when the validator is unreachable, too slow, answers too much or not JSON
 *   (the caller answers `AUTH_FAIL 401 "Authentication failed"`).
 */
export async function callValidator(
  target: ValidatorTarget,
  token: string,
  hint: string | undefined,
  timeoutMs = VALIDATOR_TIMEOUT_MS,
): Promise<{ realm: string; role: string } | null> {
  const body = JSON.stringify(hint ? { token, realm: hint } : { token });
  const { status, text } = await post(target, body, timeoutMs);
  if (status < 200 || status >= 300) return null;
  const json: unknown = text.trim() === '' ? {} : JSON.parse(text);
  if (typeof json !== 'object' || json === null) return null;
  const answer = json as Record<string, unknown>;
  if (answer.valid === false || answer.ok === false) return null;
  if (!answer.realm || !answer.role) return null;
  const realm = String(answer.realm);
  const role = String(answer.role);
  if (!(ROLES as readonly string[]).includes(role) || !inScope(target.scope, realm)) return null;
  return { realm, role };
}

function post(
  target: ValidatorTarget,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      reject(new Error(`unsupported validator scheme ${url.protocol}`));
      return;
    }
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    if (target.secret) headers['x-mq-auth-secret'] = target.secret;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', headers });
    const timer = setTimeout(() => req.destroy(new Error('validator timed out')), timeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.once('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > VALIDATOR_MAX_RESPONSE_BYTES) {
          req.destroy(new Error('validator response too large'));
          return;
        }
        chunks.push(chunk);
      });
      res.once('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.end(body);
  });
}
