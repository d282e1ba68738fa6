/**
 * Connections without a token: role-declared admission, pre-shared keys, producer acceptance,
 * open realms, implicit admission, realm `*` hardening and the anonymous policy
 * (`spec/protocol-admin.md` §2.3 steps 5–8, §3.4, §3.5, §18 item 1; `spec/protocol-core.md`
 * §3.1; §19 "phase1-roles-authorization").
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import { authenticate, useAuthBroker } from '../../helpers/auth-clients';
import { sync, waitForServerDisconnect } from '../../helpers/broker-harness';
import { consumerPayload, jsProducerPayload } from '../../helpers/stock-clients';
import { waitFor } from '../../helpers/wait';

const REALMS = {
  open: { required: false },
  psk: { key: 'right-key' },
  // Issue 20: `require_key: false` waives the key for token-less consumers only with the opt-in.
  waived: { key: 'right-key', require_key: false, allow_tokenless_consumers: true },
  reference: { allow_tokenless_consumers: true },
  accepting: { require_acceptance: false },
  both: { key: 'k2' },
  bothWaived: { key: 'k3', require_acceptance: false },
  keyless: { require_key: true },
  closed: { allow_anonymous: false, required: false },
};

describe('role-declared connections (§2.3 steps 5–8)', () => {
  const ctx = useAuthBroker({ realms: REALMS });
  const auth = async (payload: unknown) => authenticate(await ctx.h.connect(), payload);

  it('refuses role manager without a token, even in an open realm', async () => {
    expect(await auth({ role: 'manager', realm: 'open' })).toEqual({
      event: 'AUTH_FAIL',
      code: 401,
      message: 'Manager role requires manual authorization',
    });
  });

  // Issue 20 (departure from the reference, which admits both): an unconfigured realm requires
  // auth (§3.5), so a token-less consumer needs the realm's `allow_tokenless_consumers` opt-in.
  it('refuses {role:"consumer"} into an unconfigured default or realm; admits it where the realm opts in', async () => {
    for (const realm of [undefined, 'elsewhere']) {
      expect(await auth({ role: 'consumer', realm })).toEqual({
        event: 'AUTH_FAIL',
        code: 401,
        message: `Realm '${realm ?? 'default'}' requires a token or a valid pre-shared key for consumers`,
      });
    }
    expect(await auth({ role: 'consumer', realm: 'reference' })).toEqual({
      event: 'AUTH_OK',
      realm: 'reference',
      role: 'consumer',
    });
  });

  it('admits into an open realm with the requested role, admin becoming both', async () => {
    expect(await auth({ realm: 'open', role: 'producer' })).toMatchObject({ role: 'producer' });
    expect(await auth({ realm: 'open', role: 'admin' })).toMatchObject({
      event: 'AUTH_OK',
      realm: 'open',
      role: 'both',
    });
    expect(await auth({ realm: 'open' })).toMatchObject({ event: 'AUTH_OK', role: 'both' });
  });

  it('requires the realm pre-shared key from consumers; require_key:false waives it', async () => {
    const refused = {
      event: 'AUTH_FAIL',
      code: 401,
      message: "Realm 'psk' requires a valid pre-shared key",
    };
    expect(await auth({ realm: 'psk', role: 'consumer' })).toEqual(refused);
    expect(await auth({ realm: 'psk', role: 'consumer', key: 'wrong-key' })).toEqual(refused);
    expect(await auth({ realm: 'psk', role: 'consumer', key: null })).toEqual(refused);
    expect(await auth({ realm: 'psk', role: 'consumer', key: 'right-key' })).toEqual({
      event: 'AUTH_OK',
      realm: 'psk',
      role: 'consumer',
    });
    expect(await auth({ realm: 'waived', role: 'consumer' })).toMatchObject({ event: 'AUTH_OK' });
  });

  it('refuses every key where require_key is set but no key is configured', async () => {
    expect(await auth({ realm: 'keyless', role: 'consumer', key: 'anything' })).toMatchObject({
      code: 401,
    });
  });

  it('refuses producers in realms requiring acceptance (403); require_acceptance:false admits', async () => {
    expect(await auth({ realm: 'psk', role: 'producer' })).toEqual({
      event: 'AUTH_FAIL',
      code: 403,
      message: "Producer must be accepted into realm 'psk'",
    });
    expect(await auth({ realm: 'accepting', role: 'producer' })).toEqual({
      event: 'AUTH_OK',
      realm: 'accepting',
      role: 'producer',
    });
  });

  it('needs key and acceptance for both', async () => {
    expect(await auth({ realm: 'both', role: 'both', key: 'k2' })).toMatchObject({ code: 403 });
    expect(await auth({ realm: 'bothWaived', role: 'both' })).toMatchObject({ code: 401 });
    expect(await auth({ realm: 'bothWaived', role: 'both', key: 'k3' })).toEqual({
      event: 'AUTH_OK',
      realm: 'bothWaived',
      role: 'both',
    });
  });

  it("never admits into realm '*' without a token (§18 item 1)", async () => {
    for (const payload of [
      { realm: '*', role: 'consumer' },
      { realm: '*', key: null },
    ]) {
      expect(await auth(payload)).toMatchObject({ event: 'AUTH_FAIL', code: 403 });
    }
    expect(await auth({ realm: '*' })).toMatchObject({ event: 'AUTH_FAIL', code: 401 });
  });
});

describe("realm '*' configured open (§18 item 1)", () => {
  const ctx = useAuthBroker({ realms: { '*': { required: false } } });

  it('still refuses open-realm and implicit admission into *', async () => {
    const s = await ctx.h.connect();
    expect(await authenticate(s, { realm: '*' })).toMatchObject({ event: 'AUTH_FAIL', code: 403 });
    const fail = waitFor(s, ServerEvent.AUTH_FAIL);
    s.emit(ClientEvent.CONSUMER, consumerPayload('sneaky'));
    expect(await fail).toEqual({ code: 401, message: 'Authentication required before CONSUMER' });
    expect(ctx.h.rawStats().realms['*']).toBeUndefined();
  });
});

describe('implicit admission (§3.4)', () => {
  const ctx = useAuthBroker({ realms: { ...REALMS, default: { required: false } } });

  it('admits into an open default realm as both, with no AUTH_OK, and then counts as authenticated', async () => {
    const s = await ctx.h.connect();
    const events: string[] = [];
    s.onAny((e: string) => events.push(e));
    s.emit(ClientEvent.PRODUCER, jsProducerPayload('p'));
    s.emit(ClientEvent.CONSUMER, consumerPayload('c'));
    await sync(s);
    expect(events).not.toContain(ServerEvent.AUTH_OK);
    expect(ctx.h.stats()).toMatchObject({
      producers: { online: 1 },
      consumers: { online: 1 },
    });
    expect(await authenticate(s, { role: 'consumer' })).toMatchObject({
      code: 403,
      message: 'Socket is already authenticated',
    });
  });

  it('uses the pending realm of a failed AUTHENTICATION: consumer where token-less consumers are allowed', async () => {
    const s = await ctx.h.connect();
    // Fails (acceptance required), but remembers realm "reference" (§2.3 step 4).
    expect(await authenticate(s, { realm: 'reference', role: 'producer' })).toMatchObject({
      code: 403,
    });
    s.emit(ClientEvent.CONSUMER, consumerPayload('c'));
    await sync(s);
    expect(ctx.h.rawStats().realms.reference?.consumers.online).toBe(1);
    const fail = waitFor(s, ServerEvent.AUTH_FAIL);
    s.emit(ClientEvent.PRODUCER, jsProducerPayload('p'));
    expect(await fail).toEqual({
      code: 403,
      message: "Role 'consumer' is not allowed to send PRODUCER",
    });
  });

  it('refuses implicit consumer admission where a key is required', async () => {
    const s = await ctx.h.connect();
    await authenticate(s, { realm: 'psk' });
    const fail = waitFor(s, ServerEvent.AUTH_FAIL);
    s.emit(ClientEvent.CONSUMER, consumerPayload('c'));
    expect(await fail).toEqual({ code: 401, message: 'Authentication required before CONSUMER' });
  });

  it('refuses an anonymous consumer with ERROR -4 and a disconnect where allow_anonymous is false', async () => {
    const s = await ctx.h.connect();
    expect(await authenticate(s, { realm: 'closed', role: 'consumer' })).toMatchObject({
      event: 'AUTH_OK',
    });
    const error = waitFor(s, ServerEvent.ERROR);
    const gone = waitForServerDisconnect(s);
    s.emit(ClientEvent.CONSUMER, consumerPayload('ANONYMOUS-1234'));
    expect(await error).toMatchObject({ code: -4 });
    await gone;
    // Anonymous names stay welcome in default.
    const d = await ctx.h.connect();
    d.emit(ClientEvent.CONSUMER, consumerPayload('ANONYMOUS-5678'));
    await sync(d);
    expect(d.connected).toBe(true);
  });
});

describe('realm names from clients (§18 item 10)', () => {
  const ctx = useAuthBroker({});

  it('refuses prototype keys and over-long realm names as an invalid payload', async () => {
    for (const realm of ['__proto__', 'constructor', 'x'.repeat(257)]) {
      const s = await ctx.h.connect();
      expect(await authenticate(s, { realm, role: 'consumer' })).toEqual({
        event: 'AUTH_FAIL',
        code: 401,
        message: 'Invalid authentication payload',
      });
    }
  });
});
