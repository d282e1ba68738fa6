/**
 * Summarises a V8 `.cpuprofile` (from `BENCH_CPU_PROF_DIR=<dir> npm run bench`, or from
 * `node --cpu-prof`): the functions with the most self time, and self
 * time grouped by where the code lives (broker folder, npm package, Node internals, GC).
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile>... [--top 25] [--json]
 *
 * Several files (say every phase of one server kind) are summed into one summary.
 *
 * Self time is the sum of the sampling intervals whose sample landed in the function itself
 * (not its callees). Percentages are of the busy time: every sample except `(idle)` and the
 * profiler's own work (frames under `node:inspector`), so a mostly idle profile still reads
 * as "where the work went". Units: ms and percent.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  where: string;
  self_ms: number;
  pct: number;
}

export interface ProfileSummary {
  busy_ms: number;
  idle_ms: number;
  /** Time under `node:inspector` frames: the profiler's own start/stop, left out of `busy_ms`. */
  profiler_ms: number;
  functions: ProfileRow[];
  groups: ProfileRow[];
}

const root = process.cwd();

/** Where a function's code lives, coarse: `broker/routing`, `socket.io`, `node:internal`, … */
function groupOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (path.startsWith('node:')) return 'node:internal';
  const rel = relative(root, path);
  if (rel.startsWith('..')) return path;
  const parts = rel.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Self time per function and per group, summed over one or more parsed profiles. */
export function summariseProfiles(profiles: readonly CpuProfile[], top = 25): ProfileSummary {
  const fns = new Map<string, { name: string; where: string; us: number }>();
  const groups = new Map<string, number>();
  const totals = { busyUs: 0, idleUs: 0, profilerUs: 0 };
  for (const profile of profiles) accumulate(profile, fns, groups, totals);
  const { busyUs, idleUs, profilerUs } = totals;
  const row = (name: string, where: string, us: number): ProfileRow => ({
    name,
    where,
    self_ms: Math.round(us / 100) / 10,
    pct: busyUs > 0 ? Math.round((us / busyUs) * 1000) / 10 : 0,
  });
  return {
    busy_ms: Math.round(busyUs / 1000),
    idle_ms: Math.round(idleUs / 1000),
    profiler_ms: Math.round(profilerUs / 1000),
    functions: [...fns.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => row(f.name, f.where, f.us)),
    groups: [...groups].sort((a, b) => b[1] - a[1]).map(([g, us]) => row(g, '', us)),
  };
}

function accumulate(
  profile: CpuProfile,
  fns: Map<string, { name: string; where: string; us: number }>,
  groups: Map<string, number>,
  totals: { busyUs: number; idleUs: number; profilerUs: number },
): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const underInspector = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (byId.get(at)!.callFrame.url === 'node:inspector') return true;
    }
    return false;
  };
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      totals.idleUs += us;
      continue;
    }
    if (underInspector(id)) {
      totals.profilerUs += us;
      continue;
    }
    totals.busyUs += us;
    const name = frame.functionName || '(anonymous)';
    const file = frame.url ? relative(root, frame.url.replace(/^file:\/\//, '')) : '';
    // tsx emits each module on one line, so for broker code only the file is meaningful.
    const where = !file ? '' : frame.lineNumber > 0 ? `${file}:${frame.lineNumber + 1}` : file;
    const key = `${name}@${where}`;
    const entry = fns.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    fns.set(key, entry);
    const group = groupOf(frame.url, name);
    groups.set(group, (groups.get(group) ?? 0) + us);
  }
}

function main(argv: string[]): void {
  const topAt = argv.indexOf('--top');
  const files = argv.filter((a, i) => !a.startsWith('--') && (topAt < 0 || i !== topAt + 1));
  if (files.length === 0) {
    process.stderr.write(
      'usage: tsx bench/profile-summary.ts <file.cpuprofile>... [--top N] [--json]\n',
    );
    process.exit(2);
  }
  const top = topAt >= 0 ? Number(argv[topAt + 1]) : 25;
  const profiles = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as CpuProfile);
  const summary = summariseProfiles(profiles, top);
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return;
  }
  const lines = [
    `busy ${summary.busy_ms} ms, idle ${summary.idle_ms} ms, profiler ${summary.profiler_ms} ms`,
    '',
    'self time by group:',
  ];
  for (const g of summary.groups.filter((r) => r.pct >= 0.5)) {
    lines.push(
      `  ${g.pct.toFixed(1).padStart(5)} %  ${g.self_ms.toFixed(1).padStart(8)} ms  ${g.name}`,
    );
  }
  lines.push('', `top ${top} functions by self time:`);
  for (const f of summary.functions) {
    lines.push(
      `  ${f.pct.toFixed(1).padStart(5)} %  ${f.self_ms.toFixed(1).padStart(8)} ms  ${f.name}  ${f.where}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  main(process.argv.slice(2));
