import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchConsoleCall } from '../../electron/services/console-dispatch';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { parseConsoleFlags } from '../../electron/web/cli-flags';
import {
  LOCAL_CONNECTION_ID,
  type LocalBrokerStatus,
  type Overview,
} from '../../shared/console-api';
import { SwitchboardError } from '../../shared/error-catalogue';
import { makeTempDir, type TempDir } from '../support/temp-dir';

describe('console service on the real local broker', () => {
  let dir: TempDir;
  let local: LocalConsole;

  beforeAll(async () => {
    dir = await makeTempDir();
    local = createLocalConsole({
      brokerPort: 0,
      dataDir: path.join(dir.path, 'data'),
      pollIntervalMs: 100,
    });
    await local.startBroker();
  });

  afterAll(async () => {
    await local.close();
    await dir.remove();
  });

  it('streams overviews of the local connection', async () => {
    const seen: Overview[] = [];
    const stop = local.service.on('overview', (overview) => seen.push(overview));
    await expect.poll(() => seen.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    stop();
    const latest = seen.at(-1);
    expect(latest).toMatchObject({
      connectionId: LOCAL_CONNECTION_ID,
      name: 'Local broker',
      reachable: true,
    });
    expect(latest?.local?.state).toBe('running');
    expect(latest?.url).toBe(`http://127.0.0.1:${local.supervisor.status().port}`);
  });

  it('rejects unknown connections with SWB_ERR_NOT_FOUND', async () => {
    const error = await local.service
      .getOverview({ connectionId: 'remote-1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SwitchboardError);
    expect((error as SwitchboardError).code).toBe('SWB_ERR_NOT_FOUND');
  });

  it('restarts the local broker and reports each lifecycle step', async () => {
    const states: LocalBrokerStatus['state'][] = [];
    const stop = local.service.on('localBroker', (status) => states.push(status.state));
    const before = await local.service.getLocalBroker({});
    const after = await local.service.restartLocalBroker({});
    stop();
    expect(after.state).toBe('running');
    expect(after.pid).not.toBe(before.pid);
    expect(after.port).toBe(before.port);
    expect(states[0]).toBe('stopped');
    expect(states.at(-1)).toBe('running');
  });

  it('dispatches calls with validation and catalogue errors', async () => {
    expect(await dispatchConsoleCall(local.service, 'getLocalBroker', {})).toMatchObject({
      ok: true,
    });
    expect(
      await dispatchConsoleCall(local.service, 'getOverview', { connectionId: '' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'SWB_ERR_VALIDATION' },
    });
    expect(await dispatchConsoleCall(local.service, 'hasOwnProperty', {})).toMatchObject({
      ok: false,
      error: { code: 'SWB_ERR_UNKNOWN_METHOD' },
    });
    expect(await dispatchConsoleCall(local.service, 42, {})).toMatchObject({
      ok: false,
      error: { code: 'SWB_ERR_UNKNOWN_METHOD' },
    });
  });
});

describe('console CLI flags', () => {
  it('applies defaults and the data-dir environment variable', () => {
    expect(parseConsoleFlags([], { SWITCHBOARD_DATA_DIR: '/srv/swb' })).toMatchObject({
      port: 17353,
      host: '127.0.0.1',
      brokerPort: 17352,
      brokerHost: '127.0.0.1',
      dataDir: '/srv/swb',
      help: false,
    });
    expect(parseConsoleFlags([], {}).dataDir).toMatch(/\.switchboard[\\/]data$/);
  });

  it('parses ports (0 allowed) and rejects bad values and unknown flags', () => {
    expect(
      parseConsoleFlags(['--port', '0', '--broker-port', '0', '--data-dir', '/tmp/x'], {}),
    ).toMatchObject({
      port: 0,
      brokerPort: 0,
      dataDir: '/tmp/x',
    });
    expect(() => parseConsoleFlags(['--broker-port', '70000'], {})).toThrow(
      /^Invalid --broker-port/,
    );
    expect(() => parseConsoleFlags(['--port', 'abc'], {})).toThrow(/^Invalid --port/);
    expect(() => parseConsoleFlags(['--colour'], {})).toThrow(/colour/);
  });
});
