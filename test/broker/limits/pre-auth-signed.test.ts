/**
 * A manager's socket is never authenticated (`spec/protocol-admin.md` §6: every signed event
 * carries its own proof), so the pre-auth budget must not cut off a manager that polls: correctly
 * signed commands give their budget back, while events with a bad proof still spend it.
 */
import { describe, expect, it } from 'vitest';
import { signEnvelope } from '../../../broker/index';
import { SignedAction } from '../../../shared/admin-signature';
import { ServerEvent } from '../../../shared/protocol-events';
import { ADMIN_TOKEN, useAuthBroker } from '../../helpers/auth-clients';

describe('pre-auth budget and signed commands', () => {
  const ctx = useAuthBroker(
    { tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }] },
    { limits: { enabled: true, pre_auth_events: 8 } },
  );

  it('lets one socket send many correctly signed commands', async () => {
    const s = await ctx.h.connect();
    let limited = false;
    s.on(ServerEvent.RATE_LIMITED, () => (limited = true));
    for (let i = 0; i < 30; i++) {
      const action = i % 2 ? SignedAction.AUTHORIZATION_NEXT : SignedAction.AUTH_MANAGEMENT_COMMAND;
      const body = i % 2 ? {} : { command: 'get' };
      const reply = (await s
        .timeout(5_000)
        .emitWithAck(action, signEnvelope(ADMIN_TOKEN, action, body))) as { ok?: boolean };
      expect(reply.ok).toBe(true);
    }
    expect(limited).toBe(false);
    expect(s.connected).toBe(true);
    s.disconnect();
  });

  it('still cuts off a socket sending events with a bad proof', async () => {
    const s = await ctx.h.connect();
    const limited = new Promise((resolve) => s.once(ServerEvent.RATE_LIMITED, resolve));
    const gone = new Promise((resolve) => s.once('disconnect', resolve));
    for (let i = 0; i < 12; i++) {
      s.emit(
        SignedAction.AUTH_MANAGEMENT_COMMAND,
        signEnvelope('not-the-admin-token', SignedAction.AUTH_MANAGEMENT_COMMAND, {
          command: 'get',
        }),
      );
    }
    expect(await limited).toMatchObject({ reason: 'pre_auth_events' });
    await gone;
  });
});

describe('pre-auth byte budget and signed commands (issue 20 defect 8)', () => {
  // 2 KiB: each signed frame leaves its envelope (event name, ack id: ~30 bytes) on a budget
  // credited by the command's own size, so ~70 proofs used to exhaust it (the default 1 MiB:
  // ~25,000). A proven manager's bytes are not pre-auth traffic at all.
  const ctx = useAuthBroker(
    { tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }] },
    { limits: { enabled: true, pre_auth_events: 8, pre_auth_bytes: 2_048 } },
  );

  it('never drops a manager socket for the bytes of its valid proofs', async () => {
    const s = await ctx.h.connect();
    let limited: unknown = null;
    s.on(ServerEvent.RATE_LIMITED, (notice) => (limited = notice));
    const action = SignedAction.AUTH_MANAGEMENT_COMMAND;
    for (let i = 0; i < 300; i++) {
      const reply = (await s
        .timeout(5_000)
        .emitWithAck(action, signEnvelope(ADMIN_TOKEN, action, { command: 'get' }))) as {
        ok?: boolean;
      };
      expect(reply.ok, `proof ${i}`).toBe(true);
    }
    expect(limited).toBeNull();
    expect(s.connected).toBe(true);
    s.disconnect();
  });

  it('still counts the bytes of an unproven socket', async () => {
    const s = await ctx.h.connect();
    const limited = new Promise((resolve) => s.once(ServerEvent.RATE_LIMITED, resolve));
    s.emit(SignedAction.AUTH_MANAGEMENT_COMMAND, { body: { pad: 'x'.repeat(4_096) } });
    expect(await limited).toMatchObject({ reason: 'pre_auth_bytes' });
  });
});
