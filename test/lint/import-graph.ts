/**
 * The import graph of `broker/`: which broker file imports which, read from the sources with the
 * same regexes as broker-dependencies.test.ts (no TypeScript program, so it runs in well under a
 * second). Used by broker-floors.test.ts; `npx tsx test/lint/import-graph.ts` prints the folder
 * graph.
 *
 * Two kinds of edge, kept apart:
 * - run-time: `import … from './x'`, `export … from './x'`, `import './x'`, `import('./x')`.
 *   Under `verbatimModuleSyntax` (tsconfig.base.json) an import whose every name is marked
 *   `type` (`import { type A } from './x'`) is kept at run time as `import {} from './x'`, so it
 *   is a run-time edge too: the module is still loaded and evaluated in that order.
 * - type-only: `import type … from './x'` and `export type … from './x'`, erased by the compiler.
 *
 * Only relative specifiers that land inside `broker/` are edges; `../shared/…` and packages are
 * not part of this graph. A specifier resolves to `x.ts`, else `x/index.ts`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Absolute path of the repository (two folders above this file). */
export const REPO = path.resolve(import.meta.dirname, '..', '..');
/** Absolute path of `broker/`. */
export const BROKER = path.join(REPO, 'broker');

/** One file's imports of other broker files, as paths relative to `broker/` (`mqtt/mqtt-bridge.ts`). */
export interface FileImports {
  runtime: string[];
  typeOnly: string[];
}

/** File-level graph: key and values are paths relative to `broker/`, `/`-separated. */
export type FileGraph = Map<string, FileImports>;

/** Folder-level graph: folder → folders it imports (run-time or type-only), self excluded. */
export type FolderGraph = Map<string, { runtime: Set<string>; typeOnly: Set<string> }>;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const staticImport = /^\s*(?:import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm;
const sideEffect = /^\s*import\s+'([^']+)'/gm;
const dynamic = /\bimport\(\s*'([^']+)'\s*\)/g;

/** Relative specifiers of one source text, split into run-time and type-only. */
export function relativeImports(text: string): FileImports {
  const runtime: string[] = [];
  const typeOnly: string[] = [];
  for (const m of text.matchAll(staticImport)) {
    // `export type X = …` has no `from` on the same statement, so the regex (no `;` crossing)
    // does not match it; `import type`/`export type … from` do.
    (m[1] ? typeOnly : runtime).push(m[2]!);
  }
  for (const re of [sideEffect, dynamic]) {
    for (const m of text.matchAll(re)) runtime.push(m[1]!);
  }
  const relative = (specs: string[]) => specs.filter((s) => s.startsWith('.'));
  return { runtime: relative(runtime), typeOnly: relative(typeOnly) };
}

const toKey = (abs: string) => path.relative(BROKER, abs).split(path.sep).join('/');

function resolve(fromFile: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), spec.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Reads every `broker/**\/*.ts` file and returns its broker-internal imports. */
export function fileGraph(): FileGraph {
  const graph: FileGraph = new Map();
  for (const file of sources(BROKER)) {
    const { runtime, typeOnly } = relativeImports(readFileSync(file, 'utf8'));
    const inside = (specs: string[]) => [
      ...new Set(
        specs
          .map((spec) => resolve(file, spec))
          .filter((abs): abs is string => abs !== undefined && abs.startsWith(BROKER + path.sep))
          .map(toKey),
      ),
    ];
    graph.set(toKey(file), { runtime: inside(runtime), typeOnly: inside(typeOnly) });
  }
  return graph;
}

/**
 * The floor unit a broker file belongs to: its first folder under `broker/` (`auth/store/x.ts` →
 * `auth`), or for a file directly in `broker/` the file itself (`create-broker.ts`), since the
 * top-level files range from shared types (`broker-types.ts`) to the composition root.
 */
export const unitOf = (file: string): string => (file.includes('/') ? file.split('/')[0]! : file);

/** Folder-level graph built from {@link fileGraph} with {@link unitOf}. */
export function folderGraph(files: FileGraph = fileGraph()): FolderGraph {
  const graph: FolderGraph = new Map();
  const entry = (unit: string) => {
    let found = graph.get(unit);
    if (!found) graph.set(unit, (found = { runtime: new Set(), typeOnly: new Set() }));
    return found;
  };
  for (const [file, { runtime, typeOnly }] of files) {
    const from = entry(unitOf(file));
    for (const to of runtime) if (unitOf(to) !== unitOf(file)) from.runtime.add(unitOf(to));
    for (const to of typeOnly) if (unitOf(to) !== unitOf(file)) from.typeOnly.add(unitOf(to));
  }
  return graph;
}

/**
 * Every elementary circle is too many to list; this returns the strongly connected components
 * (Tarjan) with more than one file, plus files importing themselves: each is one knot of circles.
 * `edges(file)` picks the edge kind (run-time only, or run-time and type-only).
 */
export function circles(nodes: Iterable<string>, edges: (node: string) => string[]): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    order.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges(node)) {
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, order.get(next)!));
      }
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let popped: string;
      do {
        popped = stack.pop()!;
        onStack.delete(popped);
        component.push(popped);
      } while (popped !== node);
      if (component.length > 1 || edges(node).includes(node)) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!order.has(node)) visit(node);
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const files = fileGraph();
  for (const [unit, { runtime, typeOnly }] of [...folderGraph(files)].sort()) {
    const types = [...typeOnly].filter((u) => !runtime.has(u)).sort();
    console.log(
      `${unit} -> ${[...runtime].sort().join(' ')}${types.length ? `  (types: ${types.join(' ')})` : ''}`,
    );
  }
  for (const knot of circles(files.keys(), (f) => files.get(f)?.runtime ?? [])) {
    console.log(`circle (${knot.length}): ${knot.join(' ')}`);
  }
}
