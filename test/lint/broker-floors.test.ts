/**
 * The broker's floors (issue 26; docs/architecture.md): `broker/` folders in an explicit order,
 * bottom to top, and two rules read from the sources by ./import-graph.ts.
 *
 * (a) No file-level import circle inside `broker/`, counting run-time AND type-only imports. A
 *     run-time circle makes a module see a half-evaluated neighbour (TDZ errors, `undefined`
 *     exports); a type-only circle is harmless at run time but ties the files together all the
 *     same (neither can be understood, moved or tested without the other), and the type-only
 *     circles here were the sign of a misplaced type. So none is allowed.
 * (b) A run-time import goes down: a folder imports only its own files and folders on lower
 *     floors, never one on its own floor or above. Folders sharing a floor are independent of
 *     each other. Only the top floor (the composition root: the files directly in `broker/` that
 *     assemble and start the broker, and `admin-cli/`) may import across itself.
 *     Type-only imports are not held to the floors: they are erased, load nothing, and are how a
 *     lower floor names the shape of what a higher one hands it (`Settings`, `HandlerContext`);
 *     rule (a) still keeps them free of circles.
 */
import { describe, expect, it } from 'vitest';
import { circles, fileGraph, unitOf } from './import-graph';

/**
 * Bottom to top. A unit is a folder of `broker/` or a file directly in it (import-graph.ts
 * `unitOf`). Every unit must be listed, so a new folder has to be given its floor.
 */
export const FLOORS: readonly (readonly string[])[] = [
  // Leaves: logging, the version, private files and env files on disk.
  ['logging', 'files', 'version.ts', 'parent-watch.ts'],
  ['storage'],
  ['metrics', 'transport'],
  ['limits'],
  ['auth', 'delivery'],
  ['routing'],
  // The embedding hooks in force, which both transports call.
  ['policy'],
  ['mqtt', 'cluster', 'namespaces'],
  // The tyo-mq 1.1 extension events (their handlers, the dispatcher routes them).
  ['admin', 'clients', 'extensions'],
  ['handlers', 'http', 'http-publish'],
  // The public in-process API over both transports.
  ['embedding'],
  // The settings schema, composed from every feature's own schema.
  ['config'],
  // Composition root.
  [
    'broker-types.ts',
    'create-broker.ts',
    'broker-handle.ts',
    'broker-http-surface.ts',
    'delivery-core.ts',
    'broker-listeners.ts',
    'broker-management.ts',
    'broker-drain.ts',
    'index.ts',
    'volatile-auth-warning.ts',
    'cli-layers.ts',
    'cli-flags.ts',
    'cli-config.ts',
    'cli.ts',
    'admin-cli',
  ],
];

const floorOf = new Map(FLOORS.flatMap((units, floor) => units.map((u) => [u, floor] as const)));
const TOP = FLOORS.length - 1;

describe('broker floors', () => {
  const files = fileGraph();

  it('reads the broker (the graph is not empty)', () => {
    expect(files.size).toBeGreaterThan(200);
    expect(files.get('create-broker.ts')?.runtime.length).toBeGreaterThan(20);
  });

  it('gives every broker folder a floor', () => {
    const units = new Set([...files.keys()].map(unitOf));
    expect([...units].filter((u) => !floorOf.has(u)).sort()).toEqual([]);
    expect([...floorOf.keys()].filter((u) => !units.has(u)).sort()).toEqual([]);
  });

  it('has no file-level import circle (run-time or type-only)', () => {
    const knots = circles(files.keys(), (f) => {
      const { runtime, typeOnly } = files.get(f) ?? { runtime: [], typeOnly: [] };
      return [...runtime, ...typeOnly];
    });
    expect(knots).toEqual([]);
  });

  it('imports (run-time) only from lower floors', () => {
    const upward: string[] = [];
    for (const [file, { runtime }] of files) {
      const from = unitOf(file);
      const floor = floorOf.get(from) ?? -1;
      for (const target of runtime) {
        const to = unitOf(target);
        if (to === from) continue;
        const toFloor = floorOf.get(to) ?? Infinity;
        if (toFloor < floor || (floor === TOP && toFloor === TOP)) continue;
        upward.push(`${file} (floor ${floor}) -> ${target} (floor ${toFloor})`);
      }
    }
    expect(upward).toEqual([]);
  });
});
