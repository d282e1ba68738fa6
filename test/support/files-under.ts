/** Test helper: every file under a directory, for scanning a data directory for leaked secrets. */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every file under `dir` (recursively), as paths. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}
