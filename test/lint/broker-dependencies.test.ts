/**
 * Every npm package the headless broker imports at run time is a declared `dependency`: the
 * installed package (`npm install switchboard-mq-<v>.tgz`, docs/deployment.md) gets only those,
 * so a package reached through another's dependencies (e.g. `mqtt-packet` via aedes) works in the
 * repository and fails in production. Type-only imports are erased and exempt.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const ROOTS = ['broker', 'shared'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** `pkg` of `pkg/sub` or `@scope/pkg/sub`. */
const packageOf = (spec: string): string =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;

/** Run-time imports: `import … from 'x'` (not `import type`), `export … from 'x'`, `import('x')`. */
function runtimeImports(text: string): string[] {
  const found: string[] = [];
  const staticImport = /^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+'([^']+)'/gm;
  const sideEffect = /^\s*import\s+'([^']+)'/gm;
  const dynamic = /\bimport\(\s*'([^']+)'\s*\)/g;
  for (const re of [staticImport, sideEffect, dynamic]) {
    for (const m of text.matchAll(re)) found.push(m[1]!);
  }
  return found;
}

describe('broker run-time dependencies', () => {
  it('imports only declared dependencies (not devDependencies, not transitive ones)', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const declared = new Set(Object.keys(pkg.dependencies));
    const builtins = new Set(builtinModules);
    const undeclared: string[] = [];
    for (const file of ROOTS.flatMap((root) => sources(path.join(REPO, root)))) {
      for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        const name = packageOf(spec);
        if (builtins.has(name) || declared.has(name)) continue;
        undeclared.push(`${path.relative(REPO, file)}: ${spec}`);
      }
    }
    expect(undeclared).toEqual([]);
  });
});
