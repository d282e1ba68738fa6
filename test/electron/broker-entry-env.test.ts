/**
 * `$SWITCHBOARD_BROKER_ENTRY` (docs/console.md): which broker module the web console forks.
 * Unset, this checkout's `broker/cli.ts` through tsx; a `.ts` path through tsx; a built bundle
 * with plain Node. The last case forks the test run's real bundle and waits for its ready message.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BROKER_ENTRY_ENV,
  createForkLauncher,
  forkLauncherOptionsFromEnv,
  type BrokerChild,
} from '../../electron/services/broker-launcher';
import { BROKER_BUNDLE_ENV } from '../helpers/broker-cli';
import { makeTempDir, type TempDir } from '../support/temp-dir';

describe('forkLauncherOptionsFromEnv', () => {
  it('keeps the defaults when the variable is unset or empty', () => {
    expect(forkLauncherOptionsFromEnv({})).toEqual({});
    expect(forkLauncherOptionsFromEnv({ [BROKER_ENTRY_ENV]: '' })).toEqual({});
  });

  it('runs a TypeScript entry through tsx and a bundle without, resolved to absolute paths', () => {
    expect(forkLauncherOptionsFromEnv({ [BROKER_ENTRY_ENV]: 'broker/cli.ts' })).toEqual({
      entry: path.resolve('broker/cli.ts'),
      execArgv: ['--import', 'tsx'],
    });
    expect(
      forkLauncherOptionsFromEnv({ [BROKER_ENTRY_ENV]: 'dist/broker/switchboard-broker.mjs' }),
    ).toEqual({ entry: path.resolve('dist/broker/switchboard-broker.mjs'), execArgv: [] });
  });
});

describe('a launcher from the variable', () => {
  let dir: TempDir | undefined;
  let child: BrokerChild | undefined;
  afterAll(async () => {
    if (child?.pid !== undefined) {
      const gone = new Promise<void>((resolve) => child!.onExit(() => resolve()));
      child.kill('SIGTERM');
      await gone;
    }
    await dir?.remove();
  }, 30_000);

  it.runIf(process.env[BROKER_BUNDLE_ENV])(
    'starts the built broker with plain Node and gets its ready message',
    async () => {
      dir = await makeTempDir('switchboard-broker-entry-');
      const launch = createForkLauncher(
        forkLauncherOptionsFromEnv({ [BROKER_ENTRY_ENV]: process.env[BROKER_BUNDLE_ENV] }),
      );
      child = launch({
        args: ['--host', '127.0.0.1', '--port', '0', '--data-dir', path.join(dir.path, 'data')],
        env: { ...process.env, TYO_MQ_ENV_FILE: path.join(dir.path, 'none.env') },
      });
      const ready = await new Promise<{ type?: string; port?: number }>((resolve, reject) => {
        child!.onMessage((message) => {
          const m = message as { type?: string; port?: number };
          if (m.type === 'broker-ready') resolve(m);
        });
        child!.onExit((exit) => reject(new Error(`broker exited: ${JSON.stringify(exit)}`)));
      });
      expect(ready.port).toBeGreaterThan(0);
    },
    60_000,
  );
});
