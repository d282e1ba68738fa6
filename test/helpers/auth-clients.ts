/**
 * Test helpers for the admin surface (`spec/protocol-admin.md` §2, §6, §7): authenticate a raw
 * socket the way the stock clients do, call proof-gated events with an ack, and start a broker
 * with auth on whose admin-token bootstrap never touches the working directory.
 */
import { SignJWT } from 'jose';
import { afterEach, beforeEach } from 'vitest';
import { signEnvelope } from '../../broker/auth/proof';
import type { SignedActionName } from '../../shared/admin-signature';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import {
  startBroker,
  type BrokerOptions,
  type BrokerSettings,
  type Harness,
  type Socket,
} from './broker-harness';
import { consumerPayload, jsProducerPayload } from './stock-clients';

export type AuthReply =
  | { event: 'AUTH_OK'; realm: string; role: string }
  | { event: 'AUTH_FAIL'; code: number; message: string };

/** Emits `AUTHENTICATION` and resolves with the first `AUTH_OK` / `AUTH_FAIL`. */
export function authenticate(
  socket: Socket,
  payload: unknown,
  timeoutMs = 5_000,
): Promise<AuthReply> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error('no AUTH_OK/AUTH_FAIL within timeout'));
    }, timeoutMs);
    const ok = (p: { realm: string; role: string }) => {
      cleanup();
      resolve({ event: 'AUTH_OK', ...p });
    };
    const fail = (p: { code: number; message: string }) => {
      cleanup();
      resolve({ event: 'AUTH_FAIL', ...p });
    };
    const cleanup = () => {
      clearTimeout(timer);
      socket.off(ServerEvent.AUTH_OK, ok);
      socket.off(ServerEvent.AUTH_FAIL, fail);
    };
    socket.on(ServerEvent.AUTH_OK, ok);
    socket.on(ServerEvent.AUTH_FAIL, fail);
    socket.emit(ClientEvent.AUTHENTICATION, payload);
  });
}

/** A connected socket that authenticated with `payload` (expects AUTH_OK). */
export async function loggedIn(h: Harness, payload: unknown): Promise<Socket> {
  const s = await h.connect();
  const reply = await authenticate(s, payload);
  if (reply.event !== 'AUTH_OK') throw new Error(`login refused: ${reply.code} ${reply.message}`);
  return s;
}

/** Logs in then identifies as a consumer named `name`. */
export async function consumerIn(h: Harness, auth: unknown, name: string): Promise<Socket> {
  const s = await loggedIn(h, auth);
  s.emit(ClientEvent.CONSUMER, consumerPayload(name));
  return s;
}

/** `consumerIn`, once the broker has handled the CONSUMER (its name is registered). */
export async function registeredConsumerIn(
  h: Harness,
  auth: unknown,
  name: string,
): Promise<Socket> {
  const s = await consumerIn(h, auth, name);
  await h.settle(s);
  return s;
}

/** Logs in then identifies as a producer named `name`. */
export async function producerIn(h: Harness, auth: unknown, name: string): Promise<Socket> {
  const s = await loggedIn(h, auth);
  s.emit(ClientEvent.PRODUCER, jsProducerPayload(name));
  return s;
}

/** Emits a proof-signed admin event with an ack and resolves with the reply (§1, §6). */
export async function signedCall(
  h: Harness,
  action: SignedActionName,
  secret: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const s = await h.connect();
  try {
    return (await s
      .timeout(5_000)
      .emitWithAck(action, signEnvelope(secret, action, body))) as Record<string, unknown>;
  } finally {
    s.disconnect();
  }
}

/** An HS256 JWT with `claims`, signed by `secret`. */
export function hs256(
  secret: string,
  claims: Record<string, unknown>,
  exp: number | null = Math.floor(Date.now() / 1000) + 3600,
): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
  if (exp !== null) jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(secret));
}

/** The global admin token used by `useAuthBroker` unless the test configures tokens itself. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/**
 * A fresh broker per test with `auth` (enabled by default) and an empty environment, so the
 * admin-token bootstrap never reads or writes the working directory's `.env`.
 */
export function useAuthBroker(
  auth: Record<string, unknown>,
  settings: Record<string, unknown> = {},
  options: BrokerOptions = {},
): { readonly h: Harness } {
  const ctx: { h: Harness | undefined } = { h: undefined };
  beforeEach(async () => {
    ctx.h = await startAuthBroker(auth, settings, options);
  });
  afterEach(async () => {
    const h = ctx.h;
    ctx.h = undefined;
    if (h) await h.close();
  });
  return {
    get h(): Harness {
      if (!ctx.h) throw new Error('broker not started (use inside a test)');
      return ctx.h;
    },
  };
}

export function startAuthBroker(
  auth: Record<string, unknown>,
  settings: Record<string, unknown> = {},
  options: BrokerOptions = {},
): Promise<Harness> {
  return startBroker(
    { ...settings, auth: { enabled: true, auto_admin_token: false, ...auth } } as BrokerSettings,
    { env: {}, ...options },
  );
}
