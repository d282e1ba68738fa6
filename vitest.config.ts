import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globals: true,
    // The default output, then the ten slowest files (test/support/slowest-files-reporter.ts).
    reporters: ['default', './test/support/slowest-files-reporter.ts'],
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Real servers and child processes: keep parallelism modest on 2-core machines. Measured on
    // 30 in-process files on a 2-core machine (issue 26): forks with 3 workers 56–60 s, 2 workers
    // 76 s, 4 workers 66 s, threads with 2 workers 88 s. But a whole run with 3 workers on a
    // loaded machine failed 3 tests on their 30 s budgets (Python reconnect after a restart, a
    // cluster catch-up, a 60 MB polling flush) that pass with 2: one worker per core it stays.
    pool: 'forks',
    maxWorkers: 2,
    // Test files share their worker's module cache (issue 26): loading the broker, socket.io,
    // aedes and SQLite again for each of ~300 files cost about 230 s of a 650 s run (17 s
    // without isolation). Every file closes what it opens and restores what it changes; spies
    // are restored after each test in any case.
    isolate: false,
    restoreMocks: true,
    // ...and each file leaves the process (env, cwd, umask) as it found it.
    setupFiles: ['./test/support/restore-process-state.ts'],
    // The broker CLI and the console CLI bundled once per run: spawned tests start the broker
    // ~1 s and the console ~1.5 s faster than through tsx (issue 26).
    globalSetup: [
      './test/support/broker-bundle-setup.ts',
      './test/support/console-bundle-setup.ts',
      // One Chromium per run, shared by the browser tests' files (test/support/chromium.ts).
      './test/support/chromium-server-setup.ts',
    ],
    // A broker started with auth on and no env file bootstraps its admin token into `.env` of
    // the working directory (spec §5): tests must never write, nor read, the repository's own.
    env: { TYO_MQ_ENV_FILE: join(tmpdir(), `switchboard-test-${process.pid}.env`) },
  },
});
