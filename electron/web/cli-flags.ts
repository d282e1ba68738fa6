/**
 * Flags of `npm run console` (electron/web/cli.ts), parsed with `node:util` and validated with zod.
 *
 *   --port <n>          console (web host) port, 0 = any free port      default 17353
 *   --host <h>          console bind address                             default 127.0.0.1
 *   --broker-port <n>   local broker port, 0 = any free port             default 17352
 *   --broker-host <h>   local broker bind address                        default 127.0.0.1
 *   --data-dir <dir>    local broker data directory        default $SWITCHBOARD_DATA_DIR or ~/.switchboard/data
 *   --settings <file>   broker settings file (optional)
 *   --help
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { Protocol } from '../../shared/protocol-events';

export const DEFAULT_CONSOLE_PORT = 17353;

/** Default per-user data directory of the local broker. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SWITCHBOARD_DATA_DIR || path.join(os.homedir(), '.switchboard', 'data');
}

const Port = z.coerce.number().int().min(0).max(65_535);

const FlagsSchema = z
  .object({
    port: Port.default(DEFAULT_CONSOLE_PORT),
    host: z.string().min(1).default('127.0.0.1'),
    brokerPort: Port.default(Protocol.DEFAULT_PORT),
    brokerHost: z.string().min(1).default('127.0.0.1'),
    dataDir: z.string().min(1).optional(),
    settings: z.string().min(1).optional(),
    help: z.boolean().default(false),
  })
  .strict();
export type ConsoleFlags = z.infer<typeof FlagsSchema> & { dataDir: string };

export const USAGE = `Usage: npm run console -- [options]

  --port <n>          console port (0 = any free port)        default ${DEFAULT_CONSOLE_PORT}
  --host <h>          console bind address                     default 127.0.0.1
  --broker-port <n>   local broker port (0 = any free port)    default ${Protocol.DEFAULT_PORT}
  --broker-host <h>   local broker bind address                default 127.0.0.1
  --data-dir <dir>    local broker data directory              default $SWITCHBOARD_DATA_DIR or ~/.switchboard/data
  --settings <file>   broker settings file
  --help              show this help
`;

/** Parses argv (without node and script). Throws an Error with a user-facing message. */
export function parseConsoleFlags(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): ConsoleFlags {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'broker-port': { type: 'string' },
        'broker-host': { type: 'string' },
        'data-dir': { type: 'string' },
        settings: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new Error((error as Error).message);
  }
  const parsed = FlagsSchema.safeParse({
    port: values.port,
    host: values.host,
    brokerPort: values['broker-port'],
    brokerHost: values['broker-host'],
    dataDir: values['data-dir'],
    settings: values.settings,
    help: values.help,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = String(issue?.path[0] ?? '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    throw new Error(`Invalid --${flag}: ${issue?.message ?? 'invalid value'}`);
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.dataDir ?? defaultDataDir(env)) };
}
