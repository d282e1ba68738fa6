/**
 * Secrets never reach the logs (issue 9, `spec/protocol-admin.md` §18): a full auth run at
 * `trace` level — static token, global and realm JWTs, PSK, external validator, refused tokens,
 * an authorization request approved with an admin proof, the bootstrapped admin token — and
 * none of the secrets appears in the captured pino output.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { prettyLine } from '../../../broker/logging/pretty-format';
import { SignedAction } from '../../../shared/admin-signature';
import { ClientEvent } from '../../../shared/protocol-events';
import { authenticate, hs256, signedCall, startAuthBroker } from '../../helpers/auth-clients';
import type { Harness } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const SECRETS = {
  staticToken: 'static-token-SECRET-1',
  jwtSecret: 'jwt-secret-SECRET-2-0123456789abcdefXYZ',
  managerKey: 'manager-key-SECRET-3',
  psk: 'psk-SECRET-4',
  authSecret: 'validator-secret-SECRET-5',
  externalToken: 'external-token-SECRET-6',
  clientToken: 'client-token-SECRET-7',
  wrongToken: 'wrong-token-SECRET-8',
};

let h: Harness | undefined;
let dir: TempDir | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await dir?.remove();
});

describe('secrets in logs', () => {
  it('logs none of the secrets of a full auth run', async () => {
    dir = await makeTempDir('switchboard-secrets-');
    const validator = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ realm: 'ext', role: 'consumer' }));
      });
    });
    await new Promise<void>((r) => validator.listen(0, '127.0.0.1', r));
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (l: string) => void lines.push(l) });
    const envFile = path.join(dir.path, '.env');
    try {
      h = await startAuthBroker(
        {
          env_file: envFile,
          auto_admin_token: true,
          jwt_secret: SECRETS.jwtSecret,
          auth_url: `http://127.0.0.1:${(validator.address() as AddressInfo).port}/check`,
          auth_secret: SECRETS.authSecret,
          tokens: [{ token: SECRETS.staticToken, realm: 'alpha', role: 'both' }],
          realms: {
            alpha: { manager_key: SECRETS.managerKey },
            psk: { key: SECRETS.psk },
          },
        },
        { http_api: { enabled: true } },
        { env: {}, logger },
      );
      const admin = /"([0-9a-f]{64})"/.exec(readFileSync(envFile, 'utf8'))![1]!;
      const globalJwt = await hs256(SECRETS.jwtSecret, { realm: 'g', role: 'both' }, null);
      const realmJwt = await hs256(SECRETS.managerKey, { realm: 'alpha', role: 'consumer' });
      const login = async (payload: unknown) => authenticate(await h!.connect(), payload);

      expect(await login({ token: SECRETS.staticToken })).toMatchObject({ event: 'AUTH_OK' });
      expect(await login({ token: globalJwt })).toMatchObject({ event: 'AUTH_OK' });
      expect(await login({ token: realmJwt })).toMatchObject({ event: 'AUTH_OK' });
      expect(await login({ realm: 'psk', role: 'consumer', key: SECRETS.psk })).toMatchObject({
        event: 'AUTH_OK',
      });
      expect(await login({ realm: 'psk', role: 'consumer', key: `${SECRETS.psk}x` })).toMatchObject(
        { event: 'AUTH_FAIL' },
      );
      expect(await login({ token: SECRETS.externalToken, realm: 'ext' })).toMatchObject({
        event: 'AUTH_OK',
      });
      expect(await login({ token: admin })).toMatchObject({ event: 'AUTH_OK', realm: '*' });
      // A wrong token goes to the validator too (which accepts only realm ext, scope global).
      await login({ token: SECRETS.wrongToken, realm: 'elsewhere' });

      const requester = await h.connect();
      const reply = (await requester.emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
        realm: 'alpha',
        role: 'consumer',
        client_id: 'agent',
        client_name: 'Agent',
        client_token: SECRETS.clientToken,
      })) as { request_id: string };
      await signedCall(h, SignedAction.AUTHORIZATION_NEXT, admin, {});
      await signedCall(h, SignedAction.AUTHORIZATION_DECIDE, SECRETS.managerKey, {
        request_id: reply.request_id,
        approved: true,
      });
      expect(await login({ token: SECRETS.clientToken })).toMatchObject({ event: 'AUTH_OK' });
      const res = await fetch(`${h.url}/api/stats`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      await res.text();
      await h.close();
      h = undefined;

      const log = lines.join('');
      expect(log).toContain('socket authenticated');
      expect(log).toContain('authorization request decided');
      // The same records as `--log-format pretty` writes them (issue 23).
      const pretty = lines.map(prettyLine).join('');
      expect(pretty).toContain('socket authenticated');
      for (const [name, secret] of Object.entries({ ...SECRETS, admin, globalJwt, realmJwt })) {
        expect(log.includes(secret), `${name} appears in the logs`).toBe(false);
        expect(pretty.includes(secret), `${name} appears in the pretty logs`).toBe(false);
      }
    } finally {
      validator.closeAllConnections();
      await new Promise<void>((r) => validator.close(() => r()));
    }
  });
});
