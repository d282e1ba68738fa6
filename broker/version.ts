/**
 * The broker's version, reported by `/health` and the `broker-ready` message: the package
 * version, or `SWITCHBOARD_VERSION` when a bundle sets it.
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
