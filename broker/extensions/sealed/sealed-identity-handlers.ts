/**
 * `SEALED_CERT_REQUEST` and `SEALED_UAK_SET` (`spec/protocol-extensions.md` §4.4, §4.5).
 *
 * `SEALED_CERT_REQUEST {identity|name, identity_key, device_id?}` →
 * `{ok:true, sender_cert, server_cert}` (base64 `SenderCertificate` / `ServerCertificate`,
 * §4.3; the sender certificate's `senderUuid` is the identity, valid 24 h), or
 * `{ok:false, code, message}`: the shared checks (`sealed-guard.ts`), then 400
 * `identity_key required` (not a string, empty, over 4,096 chars), 403 when the identity has a
 * prekey bundle with another identity key (Note 4-A; none is kept on this branch yet), 400
 * `could not issue certificate` (Note 4-I: not exactly 33 bytes starting 0x05; `device_id`,
 * as `Number(x) || 1`, outside 1…127). No key material is logged.
 *
 * `SEALED_UAK_SET {identity|name, mode?, uak?}` → `{ok:true, mode}`: absent or null `mode` is
 * `require-uak`; another value than the two modes is 400 `invalid mode`; `require-uak` needs a
 * string of at most 64 chars decoding (leniently) to exactly 16 bytes, else 400. The record
 * of (socket realm, identity) is replaced; it lives in memory (Note 4-J).
 */
import { ClientEvent } from '../../../shared/protocol-events';
import {
  ExtensionCode,
  ExtensionLimit,
  SealedLimit,
  SealedMode,
  SealedText,
} from '../../../shared/protocol-extensions';
import { defineExtension, own } from '../extension-reply';
import { pinIdentity } from '../identity-ownership';
import { lenientBase64, sealedActing } from './sealed-guard';

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
    try {
      await Promise.all([
        ctx.extensions.uaks.set(realm, identity, { mode, uak }),
        pinIdentity(ctx, socket, identity),
      ]);
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id }, 'identity pin not stored');
      return reply({ ok: false, code: ExtensionCode.STORAGE, message: 'uak not stored' });
    }
    if (ctx.extensions.sync) {
      ctx.logger.warn({ realm }, 'sealed UAK registry is node-local in a cluster');
    }
    reply({ ok: true, mode });
  },
);
