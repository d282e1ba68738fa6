/**
 * `--print-config` and `--check-config` of the headless broker (broker/cli.ts): the effective
 * configuration composed exactly as a start would compose it (`effective-config.ts`), printed
 * with secrets redacted and each value's source, or only validated.
 *
 * Output: `--print-config` writes `path = value  # source` lines on stdout; both write
 * `error: …` / `warning: …` lines on stderr. Exit code 0 when valid, `BrokerExitCode.CONFIG`
 * (2) otherwise.
 */
import { resolve } from 'node:path';
import { BrokerExitCode } from '../shared/broker-process';
import type { BrokerFlags } from './cli-flags';
import { CLI_DEFAULTS, flagLayers } from './cli-layers';
import { effectiveConfig, formatConfig, type ConfigEntry } from './config/effective-config';
import type { EnvSource } from './config/env-mapping';

/** Where a flag-only value came from: the flag, else its variable, else the default. */
function flagSource(argv: readonly string[], flag: string, variable?: string): string {
  if (argv.some((a) => a === flag || a.startsWith(`${flag}=`))) return flag;
  return variable ?? 'default';
}

/**
 * Prints (or only checks) the effective configuration.
 * @returns the process exit code.
 */
export function printOrCheckConfig(
  flags: BrokerFlags,
  env: NodeJS.ProcessEnv,
  fileSources: ReadonlyMap<string, EnvSource>,
  argv: readonly string[] = process.argv.slice(2),
): number {
  const varOr = (name: string) => (env[name] ? (fileSources.get(name)?.via ?? name) : undefined);
  const extra: ConfigEntry[] = [
    { path: 'port', value: flags.port, source: flagSource(argv, '--port', varOr('TYO_MQ_PORT')) },
    { path: 'host', value: flags.host, source: flagSource(argv, '--host') },
    { path: 'data_dir', value: resolve(flags.dataDir), source: flagSource(argv, '--data-dir') },
    {
      path: 'settings_file',
      value: flags.settings ?? null,
      source: flagSource(argv, '--settings', varOr('TYO_MQ_SETTINGS_FILE')),
    },
    { path: 'log_level', value: flags.logLevel, source: flagSource(argv, '--log-level') },
    {
      path: 'log_format',
      value: flags.logFormat,
      source: flagSource(argv, '--log-format', varOr('TYO_MQ_LOG_FORMAT')),
    },
  ];
  const config = effectiveConfig({
    defaults: CLI_DEFAULTS,
    flagOverrides: flagLayers(flags),
    settingsFile: flags.settings,
    env,
    fileSources,
    extra,
  });
  if (flags.printConfig) process.stdout.write(formatConfig(config));
  for (const w of config.warnings) process.stderr.write(`warning: ${w}\n`);
  for (const e of config.errors) process.stderr.write(`error: ${e}\n`);
  if (config.errors.length > 0) return BrokerExitCode.CONFIG;
  if (flags.checkConfig) process.stderr.write('configuration is valid\n');
  return BrokerExitCode.OK;
}
