#!/usr/bin/env node
/**
 * `switchboard-admin`: a command-line manager for any tyo-mq-protocol broker (Switchboard or
 * the reference), signing every command with the shared proof recipe. Documented in
 * docs/management.md.
 *
 * Secrets come from the console's secret store (`--console-data-dir`, `--console`), else the
 * environment or an env file (`--env-file`, `TYO_MQ_ENV_FILE`, `.env`):
 * `TYO_MQ_REALM_MANAGER_KEY` when set (realm-scoped), else `TYO_MQ_ADMIN_TOKEN`. Never argv.
 * Everything written to the terminal is made inert (terminal-text.ts).
 *
 * Exit codes: 0 success; 1 the broker refused the command (its code and message on stderr, and
 * for 401/403 the credential's source and the URL), or DLQ ids were not found;
 * 2 usage error; 3 broker unreachable or no answer in time; 4 no credential in the environment.
 */
import { parseArgs } from 'node:util';
import * as commands from './commands';
import { AdminConnection, ConnectionError } from './connection';
import { isoTimes } from './format';
import { consoleBrokerUrl, ConsoleSecretError, defaultConsoleDataDir } from './console-secret';
import {
  brokerUrl,
  consoleCredential,
  CredentialFileError,
  credentialFrom,
  EnvVar,
  loadEnv,
  type CredentialChoice,
} from './credentials';
import { inertLines } from './terminal-text';
import { USAGE } from './usage';

export { USAGE } from './usage';

/** After a usage error: one pointer, not 60 lines of help burying the error line. */
const HELP_HINT = 'switchboard-admin --help lists the commands and options';

export const AdminExitCode = {
  OK: 0,
  REFUSED: 1,
  USAGE: 2,
  UNREACHABLE: 3,
  NO_CREDENTIAL: 4,
} as const;

const SECRET_FLAGS = /^--(token|admin-token|key|manager-key|secret|password)(=|$)/;

export interface RunIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Codes of a refusal that may come from the credential or the broker it was sent to. */
const CREDENTIAL_CODES = new Set([401, 403]);

/**
 * Runs the CLI with `argv` (without node and script); resolves with the exit code. Output goes
 * through `rt` with control and bidi characters escaped.
 */
export async function runAdminCli(argv: string[], io: RunIo): Promise<number> {
  const rt: RunIo = {
    env: io.env,
    stdout: (t) => io.stdout(inertLines(t)),
    stderr: (t) => io.stderr(inertLines(t)),
  };
  const secretFlag = argv.find((a) => SECRET_FLAGS.test(a));
  if (secretFlag) {
    rt.stderr(
      `${secretFlag.split('=')[0]}: secrets are never read from the command line; set TYO_MQ_ADMIN_TOKEN or TYO_MQ_REALM_MANAGER_KEY (or use --env-file, or --console-data-dir for the console's local broker)`,
    );
    return AdminExitCode.USAGE;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      allowNegative: true,
      options: {
        url: { type: 'string' },
        'env-file': { type: 'string' },
        'console-data-dir': { type: 'string' },
        console: { type: 'boolean' },
        json: { type: 'boolean' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        realm: { type: 'string' },
        role: { type: 'string' },
        'client-id': { type: 'string' },
        'client-name': { type: 'string' },
        reason: { type: 'string' },
        hash: { type: 'string' },
        ttl: { type: 'string' },
        open: { type: 'boolean' },
        ephemeral: { type: 'boolean' },
        'allow-tokenless-consumers': { type: 'boolean' },
        permanent: { type: 'boolean' },
        clear: { type: 'boolean' },
        'require-key': { type: 'boolean' },
        yes: { type: 'boolean' },
        all: { type: 'boolean' },
        consumer: { type: 'string' },
        event: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
      },
    });
  } catch (err) {
    rt.stderr(`${(err as Error).message}\n${HELP_HINT}`);
    return AdminExitCode.USAGE;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (values.help ? rt.stdout : rt.stderr)(USAGE);
    return values.help ? AdminExitCode.OK : AdminExitCode.USAGE;
  }
  const consoleDir =
    values['console-data-dir'] ?? (values.console ? defaultConsoleDataDir(rt.env) : undefined);
  if (consoleDir !== undefined && values['env-file'] !== undefined) {
    rt.stderr(`--env-file and --console-data-dir name two credentials: use one\n${HELP_HINT}`);
    return AdminExitCode.USAGE;
  }
  let env: NodeJS.ProcessEnv = rt.env;
  let choice: CredentialChoice;
  try {
    if (consoleDir !== undefined) {
      // The console's broker: its own token, never one from a stray ./.env.
      choice =
        command === 'request'
          ? { credential: null, source: 'none' }
          : consoleCredential(consoleDir);
    } else {
      const loaded = loadEnv(rt.env, values['env-file']);
      env = loaded.env;
      choice = credentialFrom(loaded);
    }
  } catch (err) {
    if (err instanceof ConsoleSecretError) {
      rt.stderr(`no credential: ${err.message}`);
      return AdminExitCode.NO_CREDENTIAL;
    }
    // A misconfigured secret file is a usage error, as it is for the broker (exit 2).
    if (err instanceof CredentialFileError) {
      rt.stderr(`cannot read the credential: ${err.message}`);
      return AdminExitCode.USAGE;
    }
    rt.stderr(`cannot read env file: ${(err as Error).message}`);
    return AdminExitCode.USAGE;
  }
  const credential = choice.credential;
  if (!credential && command !== 'request') {
    rt.stderr(
      `no credential: ${choice.source}; set TYO_MQ_ADMIN_TOKEN or TYO_MQ_REALM_MANAGER_KEY (or TYO_MQ_ADMIN_TOKEN_FILE / TYO_MQ_REALM_MANAGER_KEY_FILE naming a file that holds it), use --env-file, or --console-data-dir for the console's local broker`,
    );
    return AdminExitCode.NO_CREDENTIAL;
  }
  const timeout = values.timeout ? Number(values.timeout) : 10_000;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    rt.stderr('--timeout must be a positive number of milliseconds');
    return AdminExitCode.USAGE;
  }
  // The console's broker may run on another port than the default: the console says where.
  const consoleUrl =
    consoleDir !== undefined && values.url === undefined && env[EnvVar.PORT] === undefined
      ? consoleBrokerUrl(consoleDir)
      : null;
  const url = brokerUrl(env, values.url ?? consoleUrl ?? undefined);
  let conn: AdminConnection | null = null;
  try {
    conn = await AdminConnection.open(url, timeout);
    const c: commands.CliContext = {
      conn,
      credential: credential ?? { kind: 'admin', secret: '' },
      json: Boolean(values.json),
      opts: values,
      out: rt.stdout,
      progress: rt.stderr,
    };
    switch (command) {
      case 'request':
        await commands.request(c);
        break;
      case 'next':
        await commands.next(c);
        break;
      case 'approve':
      case 'reject':
        await commands.decide(c, rest[0], command === 'approve');
        break;
      case 'revoke':
        await commands.revoke(c);
        break;
      case 'realm':
        await commands.realm(c, rest[0], rest[1], rest[2]);
        break;
      case 'dlq':
        await commands.dlq(c, rest[0], rest.slice(1));
        break;
      case 'stats':
        await commands.stats(c);
        break;
      case 'backup':
        await commands.backup(c, rest[0]);
        break;
      case 'settings':
        await commands.settings(c);
        break;
      default:
        throw new commands.UsageError(`unknown command: ${command}`);
    }
    return AdminExitCode.OK;
  } catch (err) {
    if (err instanceof commands.UsageError) {
      rt.stderr(`${err.message}\n${HELP_HINT}`);
      return AdminExitCode.USAGE;
    }
    if (err instanceof commands.RefusedError) {
      // Which token went to which broker: a stray ./.env or a wrong --url shows here.
      const named = CREDENTIAL_CODES.has(Number(err.reply.code));
      if (values.json) {
        const where = named ? { credential_source: choice.source, broker_url: url } : {};
        rt.stderr(JSON.stringify(isoTimes({ ...err.reply, ...where })));
      } else {
        rt.stderr(
          `refused: ${err.message}${named ? `\n  credential: ${choice.source}\n  broker: ${url}` : ''}`,
        );
      }
      return AdminExitCode.REFUSED;
    }
    if (err instanceof ConnectionError) {
      rt.stderr(err.message);
      return AdminExitCode.UNREACHABLE;
    }
    rt.stderr(`error: ${(err as Error).message}`);
    return AdminExitCode.REFUSED;
  } finally {
    conn?.close();
  }
}

// Run when executed directly (`npm run admin`); the bin and the tests import runAdminCli.
if (process.argv[1] && /admin-cli[\\/]main\.ts$/.test(process.argv[1])) {
  void runAdminCli(process.argv.slice(2), {
    env: process.env,
    stdout: (t) => process.stdout.write(`${t}\n`),
    stderr: (t) => process.stderr.write(`${t}\n`),
  }).then((code) => {
    process.exitCode = code;
  });
}
