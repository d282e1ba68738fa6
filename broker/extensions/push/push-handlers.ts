/**
 * `PUSH_REGISTER` and `PUSH_UNREGISTER` (`spec/protocol-extensions.md` §6.2–§6.3), with
 * ownership per Note 1.5-A's Fix (Note 6-A) and Note 6-B's token patterns.
 *
 * `PUSH_REGISTER {identity|name, transport, token|endpoint, app_id?, env?}` →
 * `{ok:true, transport, count}`; failures in §6.2's order: 400 invalid JSON, 501 not
 * configured, 429 over 30 calls per socket per fixed 60 s window (shared with UNREGISTER),
 * 400 identity required, 403 not owned, 400 unknown transport, 400 token/endpoint (≤ 4,096
 * chars; `apns` hex 16–400, `fcm` `[A-Za-z0-9_:\-.]`), 400 app_id (≤ 128 chars; `""` → null),
 * 400 env (`apns` only), 400 SSRF guard (`unifiedpush`, checked before storing). The token
 * or URL is never logged. With SQLite the reply waits for the commit (500 when it fails).
 *
 * `PUSH_UNREGISTER {identity|name, transport, token|endpoint}` → `{ok:true, removed}`.
 */
import { ClientEvent } from '../../../shared/protocol-events';
import {
  ExtensionCode,
  ExtensionLimit,
  PUSH_TRANSPORTS,
  PushText,
} from '../../../shared/protocol-extensions';
import type { HandlerContext } from '../../handlers/handler-context';
import type { BrokerSocket } from '../../transport/socket-types';
import {
  defineExtension,
  identityField,
  own,
  refuseInput,
  type ExtensionPayload,
  type ExtensionReply,
} from '../extension-reply';
import { clusterPinAllows, ownsIdentity, pinIdentity } from '../identity-ownership';
import type { ApnsEnv, PushRuntime } from './push-types';

/** Note 6-B: what real device tokens look like. */
const APNS_TOKEN = /^[0-9A-Fa-f]{16,400}$/;
const FCM_TOKEN = /^[A-Za-z0-9_:\-.]{1,4096}$/;

type Checked =
  | { ok: false }
  | { ok: true; push: PushRuntime; p: Readonly<Record<string, unknown>>; identity: string };

/**
 * §6.2 checks 1–5, shared by both events; a refusal has been answered. Check 5 includes the
 * cluster-wide pin (Note 1.5-A): another credential must not register its device for an
 * identity pinned through another node.
 */
async function commonChecks(
  ctx: HandlerContext,
  socket: BrokerSocket,
  payload: ExtensionPayload,
  refuse: (code: number, message: string) => void,
): Promise<Checked> {
  const no = (code: number, message: string): Checked => {
    refuse(code, message);
    return { ok: false };
  };
  if (!payload.ok) return no(ExtensionCode.BAD_INPUT, payload.reason);
  const push = ctx.extensions.pushRuntime;
  if (!push?.configured) return no(ExtensionCode.NOT_CONFIGURED, PushText.NOT_CONFIGURED);
  if (!push.takeRegisterSlot(socket)) return no(ExtensionCode.RATE_LIMITED, PushText.RATE_EXCEEDED);
  const identity = identityField(payload.value);
  if (typeof identity !== 'string' || identity === '') {
    return no(ExtensionCode.BAD_INPUT, PushText.IDENTITY_REQUIRED);
  }
  if (!ownsIdentity(ctx, socket, identity) || !(await clusterPinAllows(ctx, socket, identity))) {
    return no(ExtensionCode.FORBIDDEN, PushText.NOT_OWNED);
  }
  return { ok: true, push, p: payload.value, identity };
}

/** §6.2: `token`, or `endpoint` when `token` is not a string. */
function tokenOf(p: Readonly<Record<string, unknown>>): unknown {
  const token = own(p, 'token');
  return typeof token === 'string' ? token : own(p, 'endpoint');
}

function validToken(transport: string, token: unknown): token is string {
  if (typeof token !== 'string' || token === '') return false;
  if (token.length > ExtensionLimit.PUSH_MAX_TOKEN_LENGTH) return false;
  if (transport === 'apns') return APNS_TOKEN.test(token);
  if (transport === 'fcm') return FCM_TOKEN.test(token);
  return true;
}

export const handlePushRegister = defineExtension(
  ClientEvent.PUSH_REGISTER,
  async (ctx, socket, payload, reply: ExtensionReply) => {
    const refuse = (code: number, message: string) =>
      refuseInput(ctx, socket, ClientEvent.PUSH_REGISTER, reply, code, message);
    const checked = await commonChecks(ctx, socket, payload, refuse);
    if (!checked.ok) return;
    const { push, p, identity } = checked;
    const transport = own(p, 'transport');
    if (
      typeof transport !== 'string' ||
      !(PUSH_TRANSPORTS as readonly string[]).includes(transport)
    ) {
      return refuse(ExtensionCode.BAD_INPUT, PushText.UNKNOWN_TRANSPORT);
    }
    const token = tokenOf(p);
    if (!validToken(transport, token))
      return refuse(ExtensionCode.BAD_INPUT, PushText.TOKEN_REQUIRED);
    const rawAppId = own(p, 'app_id');
    if (
      rawAppId !== undefined &&
      rawAppId !== null &&
      (typeof rawAppId !== 'string' || rawAppId.length > ExtensionLimit.PUSH_MAX_APP_ID_LENGTH)
    ) {
      return refuse(ExtensionCode.BAD_INPUT, PushText.BAD_APP_ID);
    }
    const appId = typeof rawAppId === 'string' && rawAppId !== '' ? rawAppId : null;
    let env: ApnsEnv | null = null;
    if (transport === 'apns') {
      const rawEnv = own(p, 'env');
      if (rawEnv === undefined || rawEnv === null || rawEnv === 'production') env = 'production';
      else if (rawEnv === 'sandbox') env = 'sandbox';
      else return refuse(ExtensionCode.BAD_INPUT, PushText.BAD_ENV);
    }
    if (transport === 'unifiedpush') {
      let verdict: { ok: boolean };
      try {
        verdict = await push.checkEndpointUrl(token);
      } catch {
        return refuse(ExtensionCode.BAD_INPUT, PushText.URL_CHECK_FAILED);
      }
      if (!verdict.ok) return refuse(ExtensionCode.BAD_INPUT, PushText.URL_REJECTED);
    }
    const realm = socket.data.realm;
    // Ownership again after the await: the socket may have lost the name meanwhile.
    if (!ownsIdentity(ctx, socket, identity))
      return refuse(ExtensionCode.FORBIDDEN, PushText.NOT_OWNED);
    push.noteRegistration();
    let count: number;
    try {
      [count] = await Promise.all([
        ctx.extensions.pushDirectory.register(realm, identity, {
          transport,
          token,
          app_id: appId,
          env,
        }),
        pinIdentity(ctx, socket, identity),
      ]);
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id, realm }, 'push endpoint not stored');
      return reply({ ok: false, code: ExtensionCode.STORAGE, message: 'push endpoint not stored' });
    }
    ctx.logger.debug({ socket: socket.id, realm, transport, count }, 'push endpoint registered');
    reply({ ok: true, transport, count });
  },
);

export const handlePushUnregister = defineExtension(
  ClientEvent.PUSH_UNREGISTER,
  async (ctx, socket, payload, reply: ExtensionReply) => {
    const refuse = (code: number, message: string) =>
      refuseInput(ctx, socket, ClientEvent.PUSH_UNREGISTER, reply, code, message);
    const checked = await commonChecks(ctx, socket, payload, refuse);
    if (!checked.ok) return;
    const { p, identity } = checked;
    const transport = own(p, 'transport');
    const token = tokenOf(p);
    if (typeof transport !== 'string' || typeof token !== 'string' || token === '') {
      return refuse(ExtensionCode.BAD_INPUT, PushText.UNREGISTER_REQUIRED);
    }
    let removed: number;
    try {
      removed = await ctx.extensions.pushDirectory.remove(
        socket.data.realm,
        identity,
        transport,
        token,
      );
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id }, 'push endpoint not removed');
      return reply({
        ok: false,
        code: ExtensionCode.STORAGE,
        message: 'push endpoint not removed',
      });
    }
    reply({ ok: true, removed });
  },
);
