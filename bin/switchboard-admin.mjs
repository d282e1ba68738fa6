#!/usr/bin/env node
// `switchboard-admin` (docs/management.md): runs the TypeScript CLI through tsx.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const { runAdminCli } = await import('../broker/admin-cli/main.ts');
process.exitCode = await runAdminCli(process.argv.slice(2), {
  env: process.env,
  stdout: (t) => process.stdout.write(`${t}\n`),
  stderr: (t) => process.stderr.write(`${t}\n`),
});
