/**
 * The broker's version, reported by `/health`, the `broker-ready` message and `--version`:
 * the package version, or `SWITCHBOARD_VERSION` when a bundle sets it; and the commit the
 * bundle was built from (`SWITCHBOARD_BUILD_COMMIT`, embedded by scripts/build-broker.mjs).
 */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  if (process.env.SWITCHBOARD_VERSION) return process.env.SWITCHBOARD_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const BROKER_VERSION = readVersion();

/** The build commit (40 hex digits, `-dirty` suffix for a modified tree), or `sources`. */
export const BROKER_BUILD_COMMIT = process.env.SWITCHBOARD_BUILD_COMMIT || 'sources';

/** What `--version` prints, e.g. `switchboard-broker 0.1.0 (commit 1a2b…)`. */
export function versionLine(program: string): string {
  return `${program} ${BROKER_VERSION} (commit ${BROKER_BUILD_COMMIT})`;
}
