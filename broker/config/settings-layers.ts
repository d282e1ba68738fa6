/**
 * How the effective settings are composed from three layers: launcher defaults, the settings
 * file, and overrides (CLI flags, `TYO_MQ_*` variables, §13). Later layers win; objects present
 * in two layers are merged one level deep (so `--no-http-api` only turns `http_api.enabled` off
 * and `TYO_MQ_AUTH_ENABLED` only sets `auth.enabled`). A key deleted from the file falls back to
 * the default: a reload replaces the file layer whole (issue 9: no deep merge with the old
 * live settings).
 */
import { normalizeSettingsAliases } from './normalize-aliases';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Merges `layers` left to right (aliases folded first); returns a new object. */
export function layerSettings(...layers: Array<Json | undefined>): Json {
  const out: Json = {};
  for (const layer of layers) {
    if (!layer) continue;
    const folded = normalizeSettingsAliases(layer) as Json;
    for (const [key, value] of Object.entries(folded)) {
      if (value === undefined) continue;
      const prev = out[key];
      out[key] = isObject(prev) && isObject(value) ? { ...prev, ...value } : value;
    }
  }
  return out;
}
