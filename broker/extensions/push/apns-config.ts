/**
 * APNs configuration from the environment (`spec/protocol-extensions.md` §6.1, §6.9):
 * `TYO_MQ_PUSH_APNS_KEY` (a `.p8` EC P-256 private key), `_KEY_ID`, `_TEAM_ID`, `_TOPIC`
 * (all required), `_ENV` (`production` default, or `sandbox`), and the Switchboard overrides
 * `TYO_MQ_PUSH_APNS_PRODUCTION_URL` / `_SANDBOX_URL` (loopback only). Errors throw
 * `PushConfigError` with the spec's texts; key material never appears in them.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PushConfigError } from './push-types';
import type { ApnsOptions } from './apns-transport';
import type { ApnsEnv } from './push-types';

const REQUIRED = [
  'TYO_MQ_PUSH_APNS_KEY',
  'TYO_MQ_PUSH_APNS_KEY_ID',
  'TYO_MQ_PUSH_APNS_TEAM_ID',
  'TYO_MQ_PUSH_APNS_TOPIC',
] as const;

/** Reads and checks the `.p8` key. */
export function loadApnsKey(path: string): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch {
    throw new PushConfigError('TYO_MQ_PUSH_APNS_KEY unreadable');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new PushConfigError('ApnsTransport p8 is not a valid private key');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new PushConfigError('ApnsTransport p8 must be an EC (P-256) key');
  }
  return key;
}

/** The transport options of `env`, or throws; `override` checks a loopback-only URL. */
export function loadApnsOptions(
  env: Readonly<Record<string, string | undefined>>,
  override: (value: string, variable: string) => string,
): ApnsOptions {
  const missing = REQUIRED.filter((v) => !env[v]);
  if (missing.length > 0) {
    throw new PushConfigError(`push transport 'apns' requires ${missing.join(', ')}`);
  }
  const rawEnv = env.TYO_MQ_PUSH_APNS_ENV;
  if (rawEnv !== undefined && rawEnv !== '' && rawEnv !== 'production' && rawEnv !== 'sandbox') {
    throw new PushConfigError('TYO_MQ_PUSH_APNS_ENV must be "production" or "sandbox"');
  }
  const defaultEnv: ApnsEnv = rawEnv === 'sandbox' ? 'sandbox' : 'production';
  const prod = env.TYO_MQ_PUSH_APNS_PRODUCTION_URL;
  const sandbox = env.TYO_MQ_PUSH_APNS_SANDBOX_URL;
  return {
    key: loadApnsKey(env.TYO_MQ_PUSH_APNS_KEY!),
    keyId: env.TYO_MQ_PUSH_APNS_KEY_ID!,
    teamId: env.TYO_MQ_PUSH_APNS_TEAM_ID!,
    topic: env.TYO_MQ_PUSH_APNS_TOPIC!,
    defaultEnv,
    ...(prod ? { productionUrl: override(prod, 'TYO_MQ_PUSH_APNS_PRODUCTION_URL') } : {}),
    ...(sandbox ? { sandboxUrl: override(sandbox, 'TYO_MQ_PUSH_APNS_SANDBOX_URL') } : {}),
  };
}
