/**
 * `npm run lint` (ESLint + Prettier) checks the project's own sources only: a scratch file such
 * as the README's `example.mjs` saved at the top level, or a scratch folder, must not make it
 * fail (issue 7 item 7). Checked with both tools' own "is this file ignored?" answers, which are
 * what `eslint .` and `prettier --check .` go by.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const PRETTIER_IGNORE = path.join(REPO, '.prettierignore');

const SCRATCH = ['example.mjs', 'example.js', 'try.ts', 'scratch/notes.mjs', 'tmp/a/b.tsx'];
const OURS = [
  'broker/cli.ts',
  'electron/web/cli.ts',
  'renderer/src/app.tsx',
  'shared/console-api.ts',
  'test/lint/lint-scope.test.ts',
  'bench/run-all.ts',
  'scripts/build-electron.mjs',
  'eslint.config.js',
  'vitest.config.ts',
  'vite.renderer.config.ts',
];

describe('lint scope', () => {
  const eslint = new ESLint({ cwd: REPO });

  it.each(SCRATCH)('ESLint and Prettier leave %s alone', async (file) => {
    expect(await eslint.isPathIgnored(path.join(REPO, file))).toBe(true);
    const info = await prettier.getFileInfo(path.join(REPO, file), { ignorePath: PRETTIER_IGNORE });
    expect(info.ignored).toBe(true);
  });

  it.each(OURS)('ESLint and Prettier check %s', async (file) => {
    expect(await eslint.isPathIgnored(path.join(REPO, file))).toBe(false);
    const info = await prettier.getFileInfo(path.join(REPO, file), { ignorePath: PRETTIER_IGNORE });
    expect(info.ignored).toBe(false);
  });

  it.each(['README.md', 'docs/console.md', 'package.json', 'tsconfig.json'])(
    'Prettier checks %s',
    async (file) => {
      const info = await prettier.getFileInfo(path.join(REPO, file), {
        ignorePath: PRETTIER_IGNORE,
      });
      expect(info.ignored).toBe(false);
    },
  );
});
