/**
 * Diffs of two payloads (issue 27): a structural JSON diff (added / removed / changed paths)
 * when both parse as JSON, else a line diff of their text. Own small implementation: no diff
 * package is a dependency of the project, and payloads the console shows are small (the tap
 * keeps 2,048 characters, dead letters 64 KiB).
 */

export interface JsonChange {
  /** JSONPath-like location: `$`, `$.a.b`, `$.items[2]`, `$["odd key"]`. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  /** The value at `path` in the first payload (absent for `added`). */
  before?: unknown;
  /** The value at `path` in the second payload (absent for `removed`). */
  after?: unknown;
}

export interface DiffLine {
  /** `same` in both, `removed` only in the first, `added` only in the second. */
  op: 'same' | 'removed' | 'added';
  text: string;
}

/** Changes listed at most; the rest is counted (`JsonDiff.more`). */
export const MAX_JSON_CHANGES = 500;
/** Above this many line pairs (n × m) the line diff skips the LCS and lists both texts. */
export const MAX_LINE_DIFF_CELLS = 4_000_000;

export interface JsonDiff {
  changes: JsonChange[];
  /** Changes found beyond `MAX_JSON_CHANGES`. */
  more: number;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Structural diff of two JSON values: objects by key (keys of `a` first, then new keys of `b`),
 * arrays by index, anything else by value. A value whose type changes is one `changed` entry.
 */
export function diffJson(a: unknown, b: unknown, max = MAX_JSON_CHANGES): JsonDiff {
  const changes: JsonChange[] = [];
  let more = 0;
  const push = (change: JsonChange): void => {
    if (changes.length < max) changes.push(change);
    else more++;
  };
  const walk = (x: unknown, y: unknown, path: string): void => {
    if (Array.isArray(x) && Array.isArray(y)) {
      const n = Math.max(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const p = childPath(path, i);
        if (i >= y.length) push({ path: p, kind: 'removed', before: x[i] });
        else if (i >= x.length) push({ path: p, kind: 'added', after: y[i] });
        else walk(x[i], y[i], p);
      }
      return;
    }
    if (isRecord(x) && isRecord(y)) {
      for (const key of Object.keys(x)) {
        const p = childPath(path, key);
        if (!Object.hasOwn(y, key)) push({ path: p, kind: 'removed', before: x[key] });
        else walk(x[key], y[key], p);
      }
      for (const key of Object.keys(y)) {
        if (!Object.hasOwn(x, key))
          push({ path: childPath(path, key), kind: 'added', after: y[key] });
      }
      return;
    }
    if (!Object.is(x, y)) push({ path, kind: 'changed', before: x, after: y });
  };
  walk(a, b, '$');
  return { changes, more };
}

/**
 * Line diff of two texts (longest common subsequence of lines). Past `MAX_LINE_DIFF_CELLS`
 * it does not align the middle: it keeps the common head and tail and lists the rest as
 * removed then added.
 */
export function diffLines(a: string, b: string, maxCells = MAX_LINE_DIFF_CELLS): DiffLine[] {
  const x = a.split('\n');
  const y = b.split('\n');
  // Common head and tail first: cheap, and usually most of two similar payloads.
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (
    tail < x.length - head &&
    tail < y.length - head &&
    x[x.length - 1 - tail] === y[y.length - 1 - tail]
  ) {
    tail++;
  }
  const xs = x.slice(head, x.length - tail);
  const ys = y.slice(head, y.length - tail);
  const same = (lines: string[]): DiffLine[] => lines.map((text) => ({ op: 'same', text }));
  const middle: DiffLine[] = [];
  if (xs.length * ys.length > maxCells) {
    middle.push(...xs.map((text): DiffLine => ({ op: 'removed', text })));
    middle.push(...ys.map((text): DiffLine => ({ op: 'added', text })));
  } else {
    // lcs[i * w + j]: LCS length of xs[i..] and ys[j..], in one flat array (a cell past the
    // end reads 0, hence the `?? 0`s that satisfy noUncheckedIndexedAccess).
    const w = ys.length + 1;
    const lcs = new Uint32Array((xs.length + 1) * w);
    const at = (i: number, j: number): number => lcs[i * w + j] ?? 0;
    for (let i = xs.length - 1; i >= 0; i--) {
      for (let j = ys.length - 1; j >= 0; j--) {
        lcs[i * w + j] =
          xs[i] === ys[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
      }
    }
    let i = 0;
    let j = 0;
    while (i < xs.length && j < ys.length) {
      const left = xs[i]!;
      const right = ys[j]!;
      if (left === right) {
        middle.push({ op: 'same', text: left });
        i++;
        j++;
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        middle.push({ op: 'removed', text: left });
        i++;
      } else {
        middle.push({ op: 'added', text: right });
        j++;
      }
    }
    middle.push(...xs.slice(i).map((text): DiffLine => ({ op: 'removed', text })));
    middle.push(...ys.slice(j).map((text): DiffLine => ({ op: 'added', text })));
  }
  return [...same(x.slice(0, head)), ...middle, ...same(x.slice(x.length - tail))];
}

/** A value as one short line for a diff listing (JSON, cut to `max` characters). */
export function shortJson(value: unknown, max = 120): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export type PayloadDiff = { kind: 'json'; diff: JsonDiff } | { kind: 'lines'; lines: DiffLine[] };

/**
 * Diff of two payloads given as JSON text: structural when both parse, else by lines (of
 * the pretty JSON when it parses, so one-line JSON texts still diff by line).
 */
export function diffPayloads(a: string, b: string): PayloadDiff {
  const parse = (t: string): { ok: true; value: unknown } | { ok: false } => {
    try {
      return { ok: true, value: JSON.parse(t) as unknown };
    } catch {
      return { ok: false };
    }
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa.ok && pb.ok) return { kind: 'json', diff: diffJson(pa.value, pb.value) };
  const lines = (t: string, p: typeof pa): string =>
    p.ok && typeof p.value !== 'string'
      ? JSON.stringify(p.value, null, 2)
      : p.ok
        ? String(p.value)
        : t;
  return { kind: 'lines', lines: diffLines(lines(a, pa), lines(b, pb)) };
}
