#!/usr/bin/env node
/**
 * `switchboard-admin`: a command-line manager for any tyo-mq-protocol broker (Switchboard or
 * the reference), signing every command with the shared proof recipe
 * (`spec/protocol-admin.md` §6, §7, §8, §17.2–§17.3). Documented in docs/management.md.
 *
 * Secrets come from the environment or an env file (`--env-file`, `TYO_MQ_ENV_FILE`, `.env`):
 * `TYO_MQ_REALM_MANAGER_KEY` when set (realm-scoped), else `TYO_MQ_ADMIN_TOKEN`. Never argv.
 *
 * Exit codes: 0 success; 1 the broker refused the command (its code and message on stderr);
 * 2 usage error; 3 broker unreachable or no answer in time; 4 no credential in the environment.
 */
import { parseArgs } from 'node:util';
import * as commands from './commands';
import { AdminConnection, ConnectionError } from './connection';
import { brokerUrl, credentialFrom, loadEnv } from './credentials';

export const AdminExitCode = {
  OK: 0,
  REFUSED: 1,
  USAGE: 2,
  UNREACHABLE: 3,
  NO_CREDENTIAL: 4,
} as const;

export const USAGE = `Usage: switchboard-admin [--url <url>] [--env-file <file>] [--json] [--timeout <ms>] <command>

Commands:
  request --realm <r> [--role <role>] [--client-id <id>] [--client-name <name>]
  next [--realm <r>]
  approve <request-id> [--role both|producer|consumer|manager]  (default: the role requested)
  reject <request-id> [--reason <text>]
  revoke --hash <token-hash> | --realm <r> --client-id <id>
  realm list
  realm add <name> [--open] [--ephemeral] [--ttl <ttl>] [--allow-tokenless-consumers]
  realm remove <name> --yes
  realm key <name> [--clear] [--require-key | --no-require-key]
  realm manager-key <name> [--clear]
  realm acceptance <name> on|off
  realm tokenless <name> on|off  (on: consumers without a token or key, the reference's rule)
  realm lifetime <name> --ttl <ttl> | --permanent
  dlq list [--realm <r>] [--consumer <c>] [--event <e>] [--limit <n>]
  dlq replay <id>... | --all [--realm <r>] [--consumer <c>] [--event <e>]
  dlq discard <id>... | --all --yes [--realm <r>] [--consumer <c>] [--event <e>]
  stats
  settings

Secrets are read from TYO_MQ_REALM_MANAGER_KEY or TYO_MQ_ADMIN_TOKEN (environment or env file),
never from the command line. Broker: --url, else TYO_MQ_PROTOCOL://TYO_MQ_HOST:TYO_MQ_PORT.
Exit codes: 0 ok, 1 refused by the broker, 2 usage, 3 unreachable, 4 no credential.`;

const SECRET_FLAGS = /^--(token|admin-token|key|manager-key|secret|password)(=|$)/;

export interface RunIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function runAdminCli(argv: string[], rt: RunIo): Promise<number> {
  const secretFlag = argv.find((a) => SECRET_FLAGS.test(a));
  if (secretFlag) {
    rt.stderr(
      `${secretFlag.split('=')[0]}: secrets are never read from the command line; set TYO_MQ_ADMIN_TOKEN or TYO_MQ_REALM_MANAGER_KEY (or use --env-file)`,
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
      },
    });
  } catch (err) {
    rt.stderr(`${(err as Error).message}\n\n${USAGE}`);
    return AdminExitCode.USAGE;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (values.help ? rt.stdout : rt.stderr)(USAGE);
    return values.help ? AdminExitCode.OK : AdminExitCode.USAGE;
  }
  let env: NodeJS.ProcessEnv;
  try {
    env = loadEnv(rt.env, values['env-file']);
  } catch (err) {
    rt.stderr(`cannot read env file: ${(err as Error).message}`);
    return AdminExitCode.USAGE;
  }
  const credential = credentialFrom(env);
  if (!credential && command !== 'request') {
    rt.stderr(
      'no credential: set TYO_MQ_ADMIN_TOKEN or TYO_MQ_REALM_MANAGER_KEY in the environment or an env file',
    );
    return AdminExitCode.NO_CREDENTIAL;
  }
  const timeout = values.timeout ? Number(values.timeout) : 10_000;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    rt.stderr('--timeout must be a positive number of milliseconds');
    return AdminExitCode.USAGE;
  }
  let conn: AdminConnection | null = null;
  try {
    conn = await AdminConnection.open(brokerUrl(env, values.url), timeout);
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
      case 'settings':
        await commands.settings(c);
        break;
      default:
        throw new commands.UsageError(`unknown command: ${command}`);
    }
    return AdminExitCode.OK;
  } catch (err) {
    if (err instanceof commands.UsageError) {
      rt.stderr(`${err.message}\n\n${USAGE}`);
      return AdminExitCode.USAGE;
    }
    if (err instanceof commands.RefusedError) {
      rt.stderr(values.json ? JSON.stringify(err.reply) : `refused: ${err.message}`);
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
