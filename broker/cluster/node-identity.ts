/**
 * This node's cluster id when none is configured (docs/cluster.md "Running a cluster"): 16
 * random hex characters, kept in `<dataDir>/cluster-node-id` (mode 0600) so a restarted node
 * is the same member and catches up on its relay inbox. Without a data directory (an embedded
 * broker given none) the id is new per process, and a restart starts with an empty inbox.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from '../files/private-files';

/** File name of the kept id inside the data directory. */
export const NODE_ID_FILE = 'cluster-node-id';

const VALID = /^[\w.:-]{1,128}$/;

/**
 * The configured id, else the one kept in `dataDir` (created on first use), else a new one.
 * A kept file that cannot be read or written is not fatal: the id is then new per process.
 */
export function clusterNodeId(configured: string | undefined, dataDir: string | undefined): string {
  if (configured) return configured;
  const fresh = randomBytes(8).toString('hex');
  if (!dataDir) return fresh;
  const file = path.join(dataDir, NODE_ID_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (VALID.test(kept)) return kept;
  } catch {
    // Not there yet: written below.
  }
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${fresh}\n`, { mode: PRIVATE_FILE_MODE });
  } catch {
    // A read-only data directory: this run's id is not kept.
  }
  return fresh;
}
