/**
 * Vitest setup file: test files share their worker process (`isolate: false`,
 * vitest.config.ts), so what one file changes of the process must not reach the next. A broker
 * made in-process with auth on writes its generated admin token — and the env file's other
 * variables — into `process.env` (spec §5 bootstrap, `admin-bootstrap.ts`), which a later file's
 * forked CLI would inherit (found by CI: no admin token generated, settings overridden). Each
 * file gets the environment and working directory its worker started with.
 */
import { afterAll } from 'vitest';

const env = { ...process.env };
const cwd = process.cwd();

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
});
