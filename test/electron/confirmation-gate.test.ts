/**
 * Confirmation tokens of the dangerous ConsoleApi calls (issue 22 item 22), through the real
 * IPC handler and dispatcher: a direct call is refused and never reaches the service; a token
 * minted by `confirmCall` works once, only for the call it was minted for, only while fresh; a
 * rejection needs none; the desktop app's gesture (its native dialog) can say no.
 */
import { describe, expect, it } from 'vitest';
import { APP_URL } from '../../electron/main/app-origin';
import { consoleInvokeHandler } from '../../electron/main/console-ipc-handler';
import type { IpcSenderEvent } from '../../electron/main/window-policy';
import { ConfirmationGate } from '../../electron/services/confirmation-gate';
import { dispatchConsoleCall } from '../../electron/services/console-dispatch';
import type { ConsoleService } from '../../shared/console-api';
import { CONFIRMED_METHODS, needsConfirmation } from '../../shared/console-api-confirm';

const sender: IpcSenderEvent = { senderFrame: { url: APP_URL, parent: null } };
const approve = { connectionId: 'local', requestId: 'req-1', approved: true, role: 'consumer' };

/** A service that records what reached it. */
function recordingService() {
  const calls: { method: string; input: unknown }[] = [];
  const answer = (method: string) => async (input: unknown) => {
    calls.push({ method, input });
    return { ok: true } as never;
  };
  const service = {
    decideRequest: answer('decideRequest'),
    removeRealm: answer('removeRealm'),
    discardDeadLetters: answer('discardDeadLetters'),
    getLocalBroker: answer('getLocalBroker'),
  } as unknown as ConsoleService;
  return { service, calls };
}

describe('confirmation tokens', () => {
  it('refuses a direct approval and lets a confirmed one through, once', async () => {
    const { service, calls } = recordingService();
    const handle = consoleInvokeHandler(service);
    const direct = await handle(sender, 'decideRequest', approve);
    expect(direct).toMatchObject({ ok: false, error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' } });
    const forged = await handle(sender, 'decideRequest', { ...approve, confirmation: 'guess' });
    expect(forged).toMatchObject({ ok: false, error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' } });
    expect(calls).toEqual([]);

    const minted = await handle(sender, 'confirmCall', { method: 'decideRequest', input: approve });
    expect(minted).toMatchObject({ ok: true });
    const { confirmation, expiresAt } = (
      minted as { value: { confirmation: string; expiresAt: number } }
    ).value;
    expect(expiresAt).toBeGreaterThan(Date.now());
    // Keys in another order bind alike; the service gets the input without the token.
    const reordered = {
      role: 'consumer',
      approved: true,
      requestId: 'req-1',
      connectionId: 'local',
    };
    expect(await handle(sender, 'decideRequest', { ...reordered, confirmation })).toMatchObject({
      ok: true,
    });
    expect(calls).toEqual([{ method: 'decideRequest', input: approve }]);
    // Single use.
    expect(await handle(sender, 'decideRequest', { ...approve, confirmation })).toMatchObject({
      ok: false,
      error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' },
    });
    expect(calls).toHaveLength(1);
  });

  it('binds a token to its call: another request, role or method is refused', async () => {
    const { service, calls } = recordingService();
    const gate = new ConfirmationGate();
    const mint = async (method: 'decideRequest' | 'removeRealm', input: Record<string, unknown>) =>
      (await gate.mint(method, input)).confirmation;
    const other = { ...approve, requestId: 'req-2' };
    const cases: [string, Record<string, unknown>][] = [
      ['decideRequest', { ...other, confirmation: await mint('decideRequest', approve) }],
      [
        'decideRequest',
        { ...approve, role: 'both', confirmation: await mint('decideRequest', approve) },
      ],
      [
        'removeRealm',
        {
          connectionId: 'local',
          realm: 'fleet',
          confirmName: 'fleet',
          confirmation: await mint('decideRequest', approve),
        },
      ],
    ];
    for (const [method, input] of cases) {
      expect(await dispatchConsoleCall(service, method, input, undefined, gate)).toMatchObject({
        ok: false,
        error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' },
      });
    }
    expect(calls).toEqual([]);
  });

  it('expires a token after its lifetime', async () => {
    const { service, calls } = recordingService();
    let now = 1_000_000;
    const gate = new ConfirmationGate({ ttlMs: 60_000, now: () => now });
    const input = { connectionId: 'local', realm: 'fleet', confirmName: 'fleet' };
    const { confirmation } = await gate.mint('removeRealm', input);
    now += 60_000;
    expect(
      await dispatchConsoleCall(
        service,
        'removeRealm',
        { ...input, confirmation },
        undefined,
        gate,
      ),
    ).toMatchObject({ ok: false, error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' } });
    expect(calls).toEqual([]);
  });

  it('needs nothing for a rejection or a harmless call; refuses to mint for bad input', async () => {
    const { service, calls } = recordingService();
    const handle = consoleInvokeHandler(service);
    expect(await handle(sender, 'decideRequest', { ...approve, approved: false })).toMatchObject({
      ok: true,
    });
    expect(await handle(sender, 'getLocalBroker', {})).toMatchObject({ ok: true });
    expect(calls.map((c) => c.method)).toEqual(['decideRequest', 'getLocalBroker']);
    expect(
      await handle(sender, 'confirmCall', { method: 'decideRequest', input: { approved: 1 } }),
    ).toMatchObject({ ok: false, error: { code: 'SWB_ERR_VALIDATION' } });
    expect(
      await handle(sender, 'confirmCall', { method: 'getLocalBroker', input: {} }),
    ).toMatchObject({ ok: false, error: { code: 'SWB_ERR_VALIDATION' } });
    for (const method of CONFIRMED_METHODS) expect(needsConfirmation(method, {})).toBe(true);
    // Without a transport's gate (a service embedded in a test), confirmCall does not exist.
    expect(
      await dispatchConsoleCall(service, 'confirmCall', { method: 'removeRealm', input: {} }),
    ).toMatchObject({ ok: false, error: { code: 'SWB_ERR_UNKNOWN_METHOD' } });
  });

  it('mints nothing when the gesture (the desktop app’s dialog) says no', async () => {
    const { service, calls } = recordingService();
    const asked: string[] = [];
    const gate = new ConfirmationGate({
      gesture: async ({ summary }) => {
        asked.push(summary);
        return asked.length > 1;
      },
    });
    const handle = consoleInvokeHandler(service, undefined, gate);
    const request = { method: 'decideRequest', input: approve };
    expect(await handle(sender, 'confirmCall', request)).toMatchObject({
      ok: false,
      error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' },
    });
    const yes = await handle(sender, 'confirmCall', request);
    expect(yes).toMatchObject({ ok: true });
    expect(asked).toEqual([
      'Approve authorization request req-1 as consumer?',
      'Approve authorization request req-1 as consumer?',
    ]);
    expect(calls).toEqual([]);
  });
});
