// Lint rules, including the layering rules of ARCHITECTURE §2: renderer → shared only;
// broker → shared; electron → shared and broker/index; shared → nothing.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'node:*'];
const noNode = { group: ['node:*'], message: 'Node built-ins are not allowed in this layer.' };
const restrict = (paths, patterns) => ({
  'no-restricted-imports': ['error', { paths, patterns }],
});

// Lint checks the project's own sources only: these folders and the top-level config files.
// Anything else (an `example.mjs` saved at the top level, a scratch folder) is not ours to lint.
const SOURCE_DIRS = ['bench', 'broker', 'electron', 'renderer', 'scripts', 'shared', 'test'];
const TOP_LEVEL_FILES = ['eslint.config.js', 'vite.renderer.config.ts', 'vitest.config.ts'];
const EXTENSIONS = '{ts,tsx,js,mjs,cjs}';
const PROJECT_FILES = [
  ...SOURCE_DIRS.map((dir) => `${dir}/**/*.${EXTENSIONS}`),
  ...TOP_LEVEL_FILES,
];
const onlyProject = (config) => ({ ...config, files: config.files ?? PROJECT_FILES });

export default tseslint.config(
  {
    // Global ignores: everything except the project's sources (negations re-include them).
    ignores: [
      '**/*',
      ...SOURCE_DIRS.flatMap((dir) => [`!${dir}/`, `!${dir}/**/`, `!${dir}/**/*.${EXTENSIONS}`]),
      ...TOP_LEVEL_FILES.map((file) => `!${file}`),
      '**/node_modules/',
      'renderer/dist/',
    ],
  },
  onlyProject(js.configs.recommended),
  ...tseslint.configs.recommended.map(onlyProject),
  {
    files: PROJECT_FILES,
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: restrict(
      [
        ...nodeBuiltins.map((name) => ({
          name,
          message: 'shared/ is runtime-free: no Node built-ins.',
        })),
        { name: 'electron', message: 'shared/ must not import electron.' },
        { name: 'react', message: 'shared/ must not import react.' },
      ],
      [
        noNode,
        {
          group: ['**/broker/**', '**/electron/**', '**/renderer/**'],
          message: 'shared/ imports nothing from other layers.',
        },
      ],
    ),
  },
  {
    files: ['broker/**/*.ts'],
    rules: restrict(
      [{ name: 'electron', message: 'broker/ never imports electron.' }],
      [
        {
          group: ['**/electron/**', '**/renderer/**', 'react', 'react-dom'],
          message: 'broker/ imports only shared/.',
        },
      ],
    ),
  },
  {
    files: ['electron/**/*.ts'],
    rules: restrict(
      [],
      [
        { group: ['**/renderer/**'], message: 'electron/ must not import the renderer.' },
        {
          group: ['**/broker/**', '!**/broker/index', '!**/broker/index.ts'],
          message: 'electron/ may import only broker/index.',
        },
      ],
    ),
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...restrict(
        [
          ...nodeBuiltins.map((name) => ({ name, message: 'The renderer has no Node.' })),
          {
            name: 'electron',
            message: 'The renderer reaches the main process only through ConsoleApi.',
          },
          { name: 'better-sqlite3', message: 'The renderer has no Node.' },
        ],
        [
          noNode,
          { group: ['**/broker/**', '**/electron/**'], message: 'renderer/ imports only shared/.' },
        ],
      ),
    },
  },
);
