/**
 * A small parser for the Prometheus text exposition format (version 0.0.4), enough to read a
 * broker's `/api/metrics`: `# TYPE` lines, samples with optional labels and timestamp, the
 * label-value escapes `\\`, `\"` and `\n`, and the values `NaN`, `+Inf`, `-Inf` (any case).
 *
 * Source: `spec/protocol-admin.md` §10.4 and the Prometheus "Exposition formats" document.
 * No npm dependency: prom-client only writes this format, and the parsers on npm are unmaintained.
 */

/** One sample line: `name{labels} value`. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition: samples in input order and the declared `# TYPE` of each metric family. */
export interface PromExposition {
  samples: PromSample[];
  types: Record<string, string>;
}

/** Thrown for a malformed line; `line` is 1-based. */
export class PromParseError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`Line ${line}: ${message}`);
    this.name = 'PromParseError';
  }
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** Parses exposition text. Throws `PromParseError` on the first malformed line. */
export function parsePrometheusText(text: string): PromExposition {
  const samples: PromSample[] = [];
  const types: Record<string, string> = {};
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = (lines[index] ?? '').trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (type?.[1] && type[2]) types[type[1]] = type[2];
      continue; // HELP and other comments carry nothing we need.
    }
    samples.push(parseSample(line, index + 1));
  }
  return { samples, types };
}

function parseSample(line: string, lineNo: number): PromSample {
  const name = NAME.exec(line)?.[0];
  if (!name) throw new PromParseError('expected a metric name', lineNo);
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = parseLabels(rest.slice(1), labels, lineNo);
  }
  const fields = rest.trim().split(/\s+/);
  const rawValue = fields[0];
  if (!rawValue || fields.length > 2)
    throw new PromParseError('expected "value [timestamp]"', lineNo);
  return { name, labels, value: parseValue(rawValue, lineNo) };
}

/** Parses `k="v",…}` into `labels`; returns the text after the closing brace. */
function parseLabels(text: string, labels: Record<string, string>, lineNo: number): string {
  let rest = text.trimStart();
  while (!rest.startsWith('}')) {
    const key = LABEL_NAME.exec(rest)?.[0];
    if (!key) throw new PromParseError('expected a label name', lineNo);
    rest = rest.slice(key.length).trimStart();
    if (!rest.startsWith('="'))
      throw new PromParseError(`expected ="…" after label ${key}`, lineNo);
    let value = '';
    let i = 2;
    for (; i < rest.length; i += 1) {
      const ch = rest[i];
      if (ch === '"') break;
      if (ch === '\\') {
        const next = rest[i + 1];
        value += next === 'n' ? '\n' : (next ?? '');
        i += 1;
      } else {
        value += ch;
      }
    }
    if (i >= rest.length) throw new PromParseError(`unterminated value of label ${key}`, lineNo);
    labels[key] = value;
    rest = rest.slice(i + 1).trimStart();
    if (rest.startsWith(',')) rest = rest.slice(1).trimStart();
    else if (!rest.startsWith('}'))
      throw new PromParseError('expected "," or "}" in labels', lineNo);
  }
  return rest.slice(1);
}

/**
 * Prometheus reads the special values case-insensitively (Go's `strconv.ParseFloat`), and
 * prom-client writes NaN as `Nan` (its default metrics before their first sample).
 */
function parseValue(raw: string, lineNo: number): number {
  const special = raw.toLowerCase();
  if (special === 'nan') return Number.NaN;
  if (special === '+inf' || special === 'inf') return Number.POSITIVE_INFINITY;
  if (special === '-inf') return Number.NEGATIVE_INFINITY;
  const value = Number(raw);
  if (Number.isNaN(value)) throw new PromParseError(`invalid value "${raw}"`, lineNo);
  return value;
}

/**
 * Sum of every sample of `name` (all label sets) whose labels include `match`. A metric that has
 * no sample yet counts 0 (the broker exposes a counter only after its first increment, §10.4).
 */
export function sumSamples(
  exposition: PromExposition,
  name: string,
  match: Record<string, string> = {},
): number {
  let total = 0;
  for (const sample of exposition.samples) {
    if (sample.name !== name) continue;
    if (Object.entries(match).every(([k, v]) => sample.labels[k] === v)) total += sample.value;
  }
  return total;
}
