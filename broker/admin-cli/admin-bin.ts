/**
 * `switchboard-admin`'s process entry: runs `runAdminCli` (main.ts) on this process's argv,
 * environment and standard streams, and sets the exit code; `--version` alone prints the
 * version and build commit. Loaded by bin/switchboard-admin.mjs
 * from sources and bundled as dist/broker/switchboard-admin.mjs for the npm package.
 */
import { versionLine } from '../version';
import { runAdminCli } from './main';

if (process.argv.length === 3 && process.argv[2] === '--version') {
  process.stdout.write(`${versionLine('switchboard-admin')}\n`);
} else {
  process.exitCode = await runAdminCli(process.argv.slice(2), {
    env: process.env,
    stdout: (t) => process.stdout.write(`${t}\n`),
    stderr: (t) => process.stderr.write(`${t}\n`),
  });
}
