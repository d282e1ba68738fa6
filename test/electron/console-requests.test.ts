/**
 * The console as a signed-command manager of its local broker: auth on, the admin token owned by
 * the console (a 0600 secrets file, passed through the environment), authorization requests
 * listed, noticed and decided through the ConsoleApi, realms read from the public settings.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatchConsoleCall } from '../../electron/services/console-dispatch';
import {
  FileSecretStore,
  LOCAL_ADMIN_TOKEN_SECRET,
  SECRETS_FILE_NAME,
} from '../../electron/services/secret-store';
import { LOCAL_CONNECTION_ID, type PendingRequest } from '../../shared/console-api';
import { ClientEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import { localConsoleFixture } from '../support/local-console-fixture';

const connectionId = LOCAL_CONNECTION_ID;

describe('console manager of the local broker', () => {
  const fx = localConsoleFixture({ pollIntervalMs: 200 });

  it('keeps a generated admin token in a 0600 file and runs the broker with auth on', async () => {
    const file = path.join(fx.dataDir, SECRETS_FILE_NAME);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = new FileSecretStore(fx.dataDir).get(LOCAL_ADMIN_TOKEN_SECRET);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    // The HTTP API answers the console's scrapes (bearer token) with auth on.
    const overview = await fx.local.service.getOverview({ connectionId });
    await expect
      .poll(async () => (await fx.local.service.getOverview({ connectionId })).reachable, {
        timeout: 5_000,
      })
      .toBe(true);
    expect(overview.connectionId).toBe(connectionId);
    const realms = await fx.local.service.listRealms({ connectionId });
    expect(realms.authEnabled).toBe(true);
    expect(realms.realms.find((r) => r.name === 'default')).toMatchObject({ authRequired: false });
    // The token is in no other file of the data directory (the settings file, the broker env).
    expect(readFileSync(path.join(fx.dataDir, 'settings.json'), 'utf8')).not.toContain(token);
    // Without the token the HTTP API refuses.
    const port = fx.local.supervisor.status().port;
    const refused = await fetch(`http://127.0.0.1:${port}/api/stats`);
    expect(refused.status).toBe(401);
  });

  it('notices, shows and approves a pending request; the client then logs in', async () => {
    const events: PendingRequest[] = [];
    const stop = fx.local.service.on('pendingRequest', (pending) => events.push(pending));
    const requester = await fx.client();
    const clientToken = 'client-secret-token-0123456789';
    const reply = (await requester.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: 'fleet',
      role: 'consumer',
      client_id: 'agent-01',
      client_name: 'Agent 01',
      client_token: clientToken,
      challenge_response: { ticket: 'INC-1' },
    })) as { ok: boolean; request_id: string };
    expect(reply.ok).toBe(true);

    await expect
      .poll(() => events.at(-1)?.request?.requestId, { timeout: 5_000 })
      .toBe(reply.request_id);
    const shown = await dispatchConsoleCall(fx.local.service, 'nextRequest', { connectionId });
    expect(shown).toMatchObject({
      ok: true,
      value: {
        request: {
          requestId: reply.request_id,
          realm: 'fleet',
          role: 'consumer',
          clientId: 'agent-01',
          clientName: 'Agent 01',
          challenge: '{"ticket":"INC-1"}',
          status: 'pending',
        },
      },
    });
    expect(JSON.stringify(shown)).not.toContain(clientToken);

    const decided = await dispatchConsoleCall(fx.local.service, 'decideRequest', {
      connectionId,
      requestId: reply.request_id,
      approved: true,
      role: 'both',
    });
    expect(decided).toMatchObject({ ok: true, value: { status: 'approved', role: 'both' } });
    await expect.poll(() => events.at(-1)?.request, { timeout: 5_000 }).toBeNull();
    stop();

    const login = await fx.client();
    expect(await authenticate(login, { token: clientToken, realm: 'fleet' })).toEqual({
      event: 'AUTH_OK',
      realm: 'fleet',
      role: 'both',
    });
    // A second decision on the same request: clear not-found error.
    const again = await dispatchConsoleCall(fx.local.service, 'decideRequest', {
      connectionId,
      requestId: reply.request_id,
      approved: false,
    });
    expect(again).toMatchObject({ ok: false, error: { code: 'SWB_ERR_NOT_FOUND' } });
  });

  it('keeps a pending request across a broker restart; the requester learns the decision', async () => {
    const clientToken = 'restart-client-token-77f1c2a9';
    const asked = {
      realm: 'fleet',
      role: 'consumer',
      client_id: 'agent-r',
      client_name: 'Agent R',
      client_token: clientToken,
    };
    const before = await fx.client();
    const reply = (await before
      .timeout(5_000)
      .emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, asked)) as { request_id: string };
    await fx.local.service.restartLocalBroker({});
    // Still pending after the restart (the console's broker keeps them in its auth store).
    await expect
      .poll(
        async () =>
          (await dispatchConsoleCall(fx.local.service, 'listPendingRequests', { connectionId })).ok,
        { timeout: 10_000 },
      )
      .toBe(true);
    const queue = await fx.local.service.listPendingRequests({ connectionId });
    expect(queue.requests.map((r) => r.requestId)).toEqual([reply.request_id]);
    await fx.local.service.decideRequest({
      connectionId,
      requestId: reply.request_id,
      approved: true,
    });
    const back = await fx.client();
    expect(
      await back.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
        request_id: reply.request_id,
        client_token: clientToken,
      }),
    ).toEqual({
      ok: true,
      request_id: reply.request_id,
      status: 'approved',
      realm: 'fleet',
      role: 'consumer',
    });
  });

  it('answers unknown connections and bad input with clear errors', async () => {
    expect(
      await dispatchConsoleCall(fx.local.service, 'listRealms', { connectionId: 'x' }),
    ).toMatchObject({ ok: false, error: { code: 'SWB_ERR_NOT_FOUND' } });
    expect(
      await dispatchConsoleCall(fx.local.service, 'decideRequest', {
        connectionId,
        requestId: 'r',
        approved: true,
        role: 'root',
      }),
    ).toMatchObject({ ok: false, error: { code: 'SWB_ERR_VALIDATION' } });
    // `admin` is never granted through a request (the broker refuses it): refused up front.
    expect(
      await dispatchConsoleCall(fx.local.service, 'decideRequest', {
        connectionId,
        requestId: 'r',
        approved: true,
        role: 'admin',
      }),
    ).toMatchObject({ ok: false, error: { code: 'SWB_ERR_VALIDATION' } });
  });
});
