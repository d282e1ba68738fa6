import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The layering rules of ARCHITECTURE §2, as enforced by eslint.config.js. */
describe('layering lint rules', () => {
  const eslint = new ESLint();
  const lint = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports');
  };

  it.each([
    [
      'renderer/src/bad.ts',
      "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
    ],
    ['renderer/src/bad.ts', "import fs from 'fs';\nexport const x = fs;\n"],
    [
      'renderer/src/bad.ts',
      "import { createBroker } from '../../broker/index';\nexport const x = createBroker;\n",
    ],
    [
      'renderer/src/bad.ts',
      "import { ipcRenderer } from 'electron';\nexport const x = ipcRenderer;\n",
    ],
    ['shared/bad.ts', "import { join } from 'node:path';\nexport const x = join;\n"],
    [
      'shared/bad.ts',
      "import { createBroker } from '../broker/index';\nexport const x = createBroker;\n",
    ],
    ['broker/bad.ts', "import { app } from 'electron';\nexport const x = app;\n"],
    [
      'electron/bad.ts',
      "import { Router } from '../broker/routing/router';\nexport const x = Router;\n",
    ],
  ])('refuses %s importing a forbidden module (%#)', async (file, code) => {
    expect((await lint(file, code)).length).toBeGreaterThan(0);
  });

  it.each([
    [
      'renderer/src/ok.ts',
      "import { Protocol } from '../../shared/protocol-events';\nexport const x = Protocol;\n",
    ],
    [
      'electron/ok.ts',
      "import { createBroker } from '../broker/index';\nexport const x = createBroker;\n",
    ],
    [
      'broker/ok.ts',
      "import { Protocol } from '../shared/protocol-events';\nexport const x = Protocol;\n",
    ],
  ])('allows %s (%#)', async (file, code) => {
    expect(await lint(file, code)).toEqual([]);
  });
});
