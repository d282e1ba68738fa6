/**
 * The durable scenario's CPU profile summary (`cpu_profile` of each configuration with
 * `BENCH_CPU_PROF_DIR` set, `scenarios/durable.ts`): the top self-time functions and groups of
 * one `.cpuprofile`, also logged. Times in ms, shares in % of the busy time.
 */
import { readFileSync } from 'node:fs';
import { summariseProfiles, type ProfileRow } from '../profile-summary';

/** The summary of one configuration's profile (see `DurableResult.cpu_profile`). */
export interface DurableProfile {
  busy_ms: number;
  top_functions: ProfileRow[];
  top_groups: ProfileRow[];
}

/** Rows of a profile summary kept in the JSON (the full one: `bench/profile-summary.ts`). */
const PROFILE_TOP = 10;

/** Summarises the profile written to `file` (null: no profiling) and logs its top frames. */
export function profileTop(file: string | null, log: (l: string) => void): DurableProfile | null {
  if (file === null) return null;
  const summary = summariseProfiles([JSON.parse(readFileSync(file, 'utf8'))], PROFILE_TOP);
  const rows = (r: ProfileRow) => `${r.pct.toFixed(1)} % ${r.name}${r.where ? ` ${r.where}` : ''}`;
  log(
    `  profile (${summary.busy_ms} ms busy), top self time: ${summary.functions.map(rows).join('; ')}`,
  );
  const groups = summary.groups.slice(0, PROFILE_TOP);
  log(`  by group: ${groups.map(rows).join('; ')}`);
  return { busy_ms: summary.busy_ms, top_functions: summary.functions, top_groups: groups };
}
