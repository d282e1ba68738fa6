/**
 * `brokerCliCommand()`: how a test starts the broker CLI as a child process. The bundle that
 * test/support/broker-bundle-setup.ts builds once per run when `$SWB_TEST_BROKER_BUNDLE` names
 * it (about 1 s faster per spawn), else `node --import tsx broker/cli.ts` (a single file run
 * outside the config's globalSetup). Tests of what only the source tree has (file paths of
 * broker modules, the lazy-dependency preload, `npm run broker`) use `BROKER_CLI_SOURCE`.
 */
import { fileURLToPath } from 'node:url';

/** The environment variable that names the bundled CLI (an absolute `.mjs` path). */
export const BROKER_BUNDLE_ENV = 'SWB_TEST_BROKER_BUNDLE';

/** broker/cli.ts, run through tsx. */
export const BROKER_CLI_SOURCE = fileURLToPath(new URL('../../broker/cli.ts', import.meta.url));

export interface BrokerCliCommand {
  /** The module to run (`fork(modulePath, args, { execArgv })`). */
  modulePath: string;
  /** Node's flags: `['--import', 'tsx']` for the source, none for the bundle. */
  execArgv: string[];
}

/** The CLI to run: the bundle when built, else the source through tsx. */
export function brokerCliCommand(): BrokerCliCommand {
  const bundle = process.env[BROKER_BUNDLE_ENV];
  if (bundle) return { modulePath: bundle, execArgv: [] };
  return { modulePath: BROKER_CLI_SOURCE, execArgv: ['--import', 'tsx'] };
}

/** `[node, args]` for `spawn`/`execFile`: the same choice as `brokerCliCommand()`. */
export function brokerCliArgv(args: readonly string[] = []): [string, string[]] {
  const { modulePath, execArgv } = brokerCliCommand();
  return [process.execPath, [...execArgv, modulePath, ...args]];
}
