/**
 * `SEALED_CERT_REQUEST` and `SEALED_UAK_SET` (`spec/protocol-extensions.md` §4.4, §4.5).
 *
 * `SEALED_CERT_REQUEST {identity|name, identity_key, device_id?}` →
 * `{ok:true, sender_cert, server_cert}` (base64 `SenderCertificate` / `ServerCertificate`,
 * §4.3; the sender certificate's `senderUuid` is the identity, valid 24 h), or
 * `{ok:false, code, message}`: the shared checks (`sealed-guard.ts`), then 400
 * `identity_key required` (not a string, empty, over 4,096 chars), 403 when the identity has a
 * prekey bundle with another identity key (Note 4-A's recommendation; the same bytes in
 * another base64 spelling pass; 503 when clustered and the shared prekey directory cannot be
 * reached, since the check cannot be made), 400
 * `could not issue certificate` (Note 4-I: not exactly 33 bytes starting 0x05; `device_id`,
 * as `Number(x) || 1`, outside 1…127). No key material is logged.
 *
 * `SEALED_UAK_SET {identity|name, mode?, uak?}` → `{ok:true, mode}`: absent or null `mode` is
 * `require-uak`; another value than the two modes is 400 `invalid mode`; `require-uak` needs a
 * string of at most 64 chars decoding (leniently) to exactly 16 bytes, else 400. The record
 * of (socket realm, identity) is replaced; it lives in memory (Note 4-J), or, clustered, in
 * Redis for every node as `{mode, digest}` (`sealed-uak-redis.ts`: a keyed digest, never the UAK;
 * 503 when Redis cannot be reached).
 */
import { ClientEvent } from '../../../shared/protocol-events';
import {
  ExtensionCode,
  ExtensionLimit,
  PrekeyText,
  SealedLimit,
  SealedMode,
  SealedText,
} from '../../../shared/protocol-extensions';
import type { HandlerContext } from '../../handlers/handler-context';
import { defineExtension, own } from '../extension-reply';
import { PrekeyDirectoryUnavailable } from '../prekey-redis-directory';
import { pinIdentity } from '../identity-ownership';
import { lenientBase64, sealedActing } from './sealed-guard';
import { SealedUakUnavailable } from './sealed-uak-redis';

/** The same key bytes when both decode (base64 padding or alphabet aside), else the text. */
function sameKey(a: string, b: string): boolean {
  const x = lenientBase64(a);
  const y = lenientBase64(b);
  return x.length > 0 && y.length > 0 ? Buffer.from(x).equals(Buffer.from(y)) : a === b;
}

/**
 * Note 4-A's recommendation: whether (realm, identity) has a prekey bundle (§3) whose
 * `identity_key` is not `key`, so a certificate for it would vouch for another device's key;
 * `'unavailable'` when clustered and the shared directory (Redis) cannot be reached.
 */
async function bundleKeyDiffers(
  ctx: HandlerContext,
  realm: string,
  identity: string,
  key: string,
): Promise<boolean | 'unavailable'> {
  const shared = ctx.extensions.prekeyCluster;
  let bundleKey: string | undefined;
  if (shared) {
    try {
      bundleKey = (await shared.take(realm, identity, false))?.bundle.identity_key;
    } catch (err) {
      if (err instanceof PrekeyDirectoryUnavailable) return 'unavailable';
      throw err;
    }
  } else {
    bundleKey = ctx.extensions.prekeys.get(realm, identity)?.bundle.identity_key;
  }
  return bundleKey !== undefined && !sameKey(bundleKey, key);
}

export const handleSealedCertRequest = defineExtension(
  ClientEvent.SEALED_CERT_REQUEST,
  async (ctx, socket, payload, reply) => {
    const acting = await sealedActing(ctx, socket, ClientEvent.SEALED_CERT_REQUEST, payload, reply);
    if (!acting) return;
    const { config, identity, refuse } = acting;
    const key = own(acting.payload, 'identity_key');
    if (
      typeof key !== 'string' ||
      key === '' ||
      key.length > ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH
    ) {
      return refuse(ExtensionCode.BAD_INPUT, SealedText.IDENTITY_KEY_REQUIRED);
    }
    const bundled = await bundleKeyDiffers(ctx, socket.data.realm, identity, key);
    if (bundled === 'unavailable') {
      return refuse(ExtensionCode.UNAVAILABLE, PrekeyText.UNAVAILABLE);
    }
    if (bundled) return refuse(ExtensionCode.FORBIDDEN, SealedText.NOT_OWNED);
    const deviceId = Number(own(acting.payload, 'device_id')) || 1;
    let senderCert: string;
    try {
      senderCert = config.mintSenderCert(identity, lenientBase64(key), deviceId, Date.now());
    } catch {
      return refuse(ExtensionCode.BAD_INPUT, SealedText.CANNOT_ISSUE);
    }
    try {
      await pinIdentity(ctx, socket, identity);
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id }, 'identity pin not stored');
      return reply({ ok: false, code: ExtensionCode.STORAGE, message: SealedText.CANNOT_ISSUE });
    }
    // §4.10: the broker sees which identities asked for certificates, and logs only that.
    ctx.logger.info({ socket: socket.id, realm: socket.data.realm }, 'sender certificate issued');
    reply({ ok: true, sender_cert: senderCert, server_cert: config.serverCertB64 });
  },
);

export const handleSealedUakSet = defineExtension(
  ClientEvent.SEALED_UAK_SET,
  async (ctx, socket, payload, reply) => {
    const acting = await sealedActing(ctx, socket, ClientEvent.SEALED_UAK_SET, payload, reply);
    if (!acting) return;
    const { identity, refuse } = acting;
    const rawMode = own(acting.payload, 'mode');
    const mode = rawMode === undefined || rawMode === null ? SealedMode.REQUIRE_UAK : rawMode;
    if (mode !== SealedMode.REQUIRE_UAK && mode !== SealedMode.UNRESTRICTED) {
      return refuse(ExtensionCode.BAD_INPUT, SealedText.INVALID_MODE);
    }
    let uak: string | null = null;
    if (mode === SealedMode.REQUIRE_UAK) {
      const raw = own(acting.payload, 'uak');
      const bytes =
        typeof raw === 'string' && raw.length <= SealedLimit.MAX_UAK_CHARS
          ? lenientBase64(raw)
          : null;
      if (!bytes || bytes.length !== ExtensionLimit.SEALED_UAK_LENGTH) {
        return refuse(ExtensionCode.BAD_INPUT, SealedText.UAK_REQUIRED);
      }
      uak = Buffer.from(bytes).toString('base64');
    }
    const realm = socket.data.realm;
    const shared = ctx.extensions.uakCluster;
    try {
      await Promise.all([
        shared
          ? shared.set(realm, identity, {
              mode,
              digest: uak === null ? null : acting.config.uakDigest(lenientBase64(uak)),
            })
          : ctx.extensions.uaks.set(realm, identity, { mode, uak }),
        pinIdentity(ctx, socket, identity),
      ]);
    } catch (err) {
      if (err instanceof SealedUakUnavailable) {
        return refuse(ExtensionCode.UNAVAILABLE, SealedText.UNAVAILABLE);
      }
      ctx.logger.error({ err, socket: socket.id }, 'identity pin not stored');
      return reply({ ok: false, code: ExtensionCode.STORAGE, message: 'uak not stored' });
    }
    reply({ ok: true, mode });
  },
);
