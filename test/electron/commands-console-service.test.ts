/**
 * The console host's Command console (electron/services/commands-console-service.ts; issue 27)
 * over a real `ManagerClient`: against a real Switchboard broker, `stats` and realm commands
 * previewed (secrets, nonce, timestamp and signature masked) and run from their preview once;
 * parameters checked against the catalogue; a broker refusal answered as a reply with its code;
 * history masked and bounded. Against a socket.io server answering like a plain tyo-mq broker,
 * an extension command is `unsupported`, and what arrives is exactly the previewed body.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfirmationGate } from '../../electron/services/confirmation-gate';
import { dispatchConsoleCall } from '../../electron/services/console-dispatch';
import { ManagerClient } from '../../electron/services/manager-client';
import type { ConsoleService } from '../../shared/console-api';
import { createCommandsService } from '../../electron/services/commands-console-service';
import { SignedAction, canonicalProofBase } from '../../shared/admin-signature';
import { COMMAND_HISTORY_SIZE } from '../../shared/console-api-commands';
import { SECRET_MASK } from '../../shared/management-command-catalogue';
import { startBroker } from '../helpers/broker-harness';
import { ADMIN_TOKEN, adminSettings } from '../broker/admin/management-client';

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

function service(url: string) {
  const client = new ManagerClient({ url, secret: ADMIN_TOKEN, timeoutMs: 3_000 });
  open.push(() => client.close());
  return createCommandsService({ pool: { get: () => client } });
}

const c = 'c1';

describe('commands console service', () => {
  it('previews masked, runs the preview once, checks parameters, keeps a bounded history', async () => {
    const h = await startBroker(adminSettings());
    open.push(() => h.close());
    const cmd = service(h.url);

    const stats = await cmd.commandPreview({ connectionId: c, command: 'stats', params: {} });
    expect(JSON.parse(stats.envelopeText)).toEqual({
      body: { command: 'stats' },
      proof: { nonce: SECRET_MASK, signature: SECRET_MASK, timestamp: SECRET_MASK },
    });
    expect(stats).toMatchObject({ event: 'AUTH_MANAGEMENT_COMMAND', destructive: false });
    const ran = await cmd.commandRun({
      connectionId: c,
      command: 'stats',
      params: {},
      previewId: stats.previewId,
    });
    expect(ran.reply).toMatchObject({ ok: true, stats: expect.any(Object) });
    expect(ran.entry).toMatchObject({ command: 'stats', ok: true, code: null });
    expect(ran.entry.durationMs).toBeGreaterThanOrEqual(0);
    // The preview was used up.
    await expect(
      cmd.commandRun({ connectionId: c, command: 'stats', params: {}, previewId: stats.previewId }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_VALIDATION', message: /unknown, sent or expired/ });

    // A realm command with a secret: masked in the preview and the history, sent in full.
    const params = { realm: 'fleet', manager_key: 'mk-secret-1', required: true };
    const add = await cmd.commandPreview({ connectionId: c, command: 'add_realm', params });
    expect(add.envelopeText).not.toContain('mk-secret-1');
    expect(JSON.parse(add.envelopeText).body).toEqual({
      command: 'add_realm',
      manager_key: SECRET_MASK,
      realm: 'fleet',
      required: true,
    });
    // Other parameters than the previewed ones: refused, and the preview is void.
    await expect(
      cmd.commandRun({
        connectionId: c,
        command: 'add_realm',
        params: { ...params, required: false },
        previewId: add.previewId,
      }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_VALIDATION', message: /another call/ });
    const again = await cmd.commandPreview({ connectionId: c, command: 'add_realm', params });
    const added = await cmd.commandRun({
      connectionId: c,
      ...params_(params),
      previewId: again.previewId,
    });
    expect(added.reply).toMatchObject({
      ok: true,
      settings: { realms: { fleet: { manager_key_configured: true } } },
    });
    expect(added.entry.params).toEqual({
      realm: 'fleet',
      manager_key: SECRET_MASK,
      required: true,
    });

    // The broker's refusal is a reply with its code (the protocol's error shape).
    const dup = await cmd.commandPreview({ connectionId: c, command: 'add_realm', params });
    const refused = await cmd.commandRun({
      connectionId: c,
      ...params_(params),
      previewId: dup.previewId,
    });
    expect(refused.reply).toEqual({ ok: false, code: 409, message: 'realm already exists' });
    expect(refused.entry).toMatchObject({ ok: false, code: 409, message: 'realm already exists' });

    // Parameters are checked against the catalogue before anything is signed.
    const bad = [
      { command: 'list_queues', params: { limit: 'ten' }, message: /limit/ },
      { command: 'set_realm_e2ee', params: { realm: 'fleet', e2ee: 'maybe' }, message: /e2ee/ },
      { command: 'remove_realm', params: {}, message: /realm/ },
      { command: 'stats', params: { extra: 1 }, message: /extra/ },
      { command: 'drop_everything', params: {}, message: /not in the catalogue/ },
    ];
    for (const { command, params: p, message } of bad) {
      await expect(
        cmd.commandPreview({ connectionId: c, command, params: p }),
      ).rejects.toMatchObject({
        code: 'SWB_ERR_VALIDATION',
        message,
      });
    }

    const first = await cmd.commandHistory({ connectionId: c });
    expect(first.entries.map((e) => e.command)).toEqual(['add_realm', 'add_realm', 'stats']);
    expect(JSON.stringify(first.entries)).not.toContain('mk-secret-1');

    // Bounded: the oldest runs go.
    // One at a time: a page keeps at most 32 unsent previews.
    for (let i = 0; i < COMMAND_HISTORY_SIZE; i++) {
      const p = await cmd.commandPreview({ connectionId: c, command: 'get', params: {} });
      await cmd.commandRun({ connectionId: c, command: 'get', params: {}, previewId: p.previewId });
    }
    const last = await cmd.commandHistory({ connectionId: c });
    expect(last.entries).toHaveLength(COMMAND_HISTORY_SIZE);
    expect(last.entries.every((e) => e.command === 'get' && e.ok)).toBe(true);
    expect((await cmd.commandHistory({ connectionId: 'other' })).entries).toEqual([]);
  });

  it('sends exactly the previewed body; a plain tyo-mq broker answers unknown command', async () => {
    const received: Array<{ body: Record<string, unknown>; proof: Record<string, string> }> = [];
    const http = createServer();
    const io = new Server(http);
    io.on('connection', (socket) => {
      socket.on(SignedAction.AUTH_MANAGEMENT_COMMAND, (envelope, ack) => {
        received.push(envelope);
        ack({ ok: false, code: 400, message: 'unknown management command' });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    open.push(() => new Promise<void>((resolve) => void io.close(() => resolve())));
    const cmd = service(`http://127.0.0.1:${(http.address() as AddressInfo).port}`);
    const params = { realm: 'fleet', client_id: 'dev-7' };
    const preview = await cmd.commandPreview({ connectionId: c, command: 'close_client', params });
    expect(preview.destructive).toBe(true);
    const run = await cmd.commandRun({
      connectionId: c,
      command: 'close_client',
      params,
      previewId: preview.previewId,
    });
    expect(run.unsupported).toBe(true);
    expect(run.entry).toMatchObject({
      ok: false,
      code: 400,
      message: 'unknown management command',
    });
    expect(received).toHaveLength(1);
    const { body, proof } = received[0]!;
    expect(body).toEqual({ command: 'close_client', ...params });
    const base = canonicalProofBase(
      SignedAction.AUTH_MANAGEMENT_COMMAND,
      proof.timestamp!,
      proof.nonce!,
      body,
    );
    expect(proof.signature).toBe(createHmac('sha256', ADMIN_TOKEN).update(base).digest('hex'));
    expect(Number(proof.timestamp)).toBe(preview.signedAt);
  });
  it('asks a confirmation for destructive commands only', async () => {
    const h = await startBroker(adminSettings());
    open.push(() => h.close());
    const cmd = service(h.url) as unknown as ConsoleService;
    const gate = new ConfirmationGate();
    const call = async (command: string, params: Record<string, unknown>, confirm: boolean) => {
      const preview = await cmd.commandPreview({ connectionId: c, command, params });
      const input = { connectionId: c, command, params, previewId: preview.previewId };
      const confirmation = confirm
        ? (await gate.mint('commandRun', input)).confirmation
        : undefined;
      return dispatchConsoleCall(cmd, 'commandRun', { ...input, confirmation }, undefined, gate);
    };
    expect(await call('add_realm', { realm: 'r1' }, false)).toMatchObject({ ok: true });
    expect(await call('remove_realm', { realm: 'r1' }, false)).toMatchObject({
      ok: false,
      error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' },
    });
    expect(await call('remove_realm', { realm: 'r1' }, true)).toMatchObject({
      ok: true,
      value: { reply: { ok: true, removed_tokens: 0 } },
    });
  });
});

function params_(params: Record<string, unknown>) {
  return { command: 'add_realm', params };
}
