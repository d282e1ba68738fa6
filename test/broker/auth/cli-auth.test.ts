/**
 * The headless broker with auth (`spec/protocol-admin.md` §5, §13): `auth.enabled` no longer
 * stops it, `TYO_MQ_AUTH_ENABLED=true` turns auth on with the admin token bootstrapped into the
 * env file, and a non-loopback host without auth prints a clear warning.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { io } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process';
import { waitFor } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let proc: BrokerProcess | undefined;
let dir: TempDir | undefined;
afterEach(async () => {
  await proc?.stop();
  proc = undefined;
  await dir?.remove();
  dir = undefined;
});

describe('npm run broker with auth', () => {
  it('starts with TYO_MQ_AUTH_ENABLED=true, bootstraps the admin token, and it authenticates', async () => {
    dir = await makeTempDir('switchboard-cli-auth-');
    const envFile = path.join(dir.path, 'broker.env');
    proc = await startBrokerProcess(
      ['--port', '0', '--storage', 'memory', '--data-dir', dir.path],
      20_000,
      { TYO_MQ_AUTH_ENABLED: 'true', TYO_MQ_ENV_FILE: envFile, TYO_MQ_ADMIN_TOKEN: '' },
    );
    const token = /TYO_MQ_ADMIN_TOKEN="([0-9a-f]{64})"/.exec(readFileSync(envFile, 'utf8'))?.[1];
    expect(token).toBeDefined();
    const s = io(proc.url, { transports: ['websocket'], forceNew: true, reconnection: false });
    try {
      const ok = waitFor(s, ServerEvent.AUTH_OK);
      s.emit(ClientEvent.AUTHENTICATION, { token });
      expect(await ok).toEqual({ realm: '*', role: 'admin' });
    } finally {
      s.disconnect();
    }
    expect(proc.stderr()).not.toContain(token!);
  });

  it('warns on a non-loopback host without auth', async () => {
    dir = await makeTempDir('switchboard-cli-auth-');
    proc = await startBrokerProcess(
      ['--host', '0.0.0.0', '--port', '0', '--storage', 'memory', '--data-dir', dir.path],
      20_000,
      { TYO_MQ_ENV_FILE: path.join(dir.path, 'none.env') },
    );
    expect(proc.stderr()).toMatch(/WARNING: listening on 0\.0\.0\.0 .*authentication disabled/);
  });
});
