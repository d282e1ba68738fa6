/**
 * The settings layers the headless broker lays around the settings file (broker/cli.ts):
 * its embedded defaults (SQLite in the data directory, HTTP API on) and the overrides of its
 * flags, each named by its flag so `--print-config` can say where a value came from.
 */
import type { BrokerFlags } from './cli-flags';

type Json = Record<string, unknown>;

/** Embedded defaults, under the settings file. */
export const CLI_DEFAULTS: Json = { storage: 'sqlite', http_api: { enabled: true } };

/** The flags' overrides, in order, each with its flag; flags not given add nothing. */
export function flagLayers(flags: BrokerFlags): Array<{ flag: string; layer: Json }> {
  const out: Array<{ flag: string; layer: Json }> = [];
  if (flags.storage !== undefined)
    out.push({ flag: '--storage', layer: { storage: flags.storage } });
  if (!flags.httpApi) out.push({ flag: '--no-http-api', layer: { http_api: { enabled: false } } });
  if (flags.authStore !== undefined) {
    out.push({ flag: '--auth-store', layer: { auth_store: flags.authStore } });
  }
  // Like TYO_MQ_AUTH_ENABLED: forces the value without writing it into the settings file.
  if (flags.auth) out.push({ flag: '--auth', layer: { auth: { enabled: true } } });
  if (flags.mqttPort !== undefined) {
    const layer =
      flags.mqttPort === 'off'
        ? { mqtt: { enabled: false } }
        : { mqtt: { enabled: true, port: flags.mqttPort } };
    out.push({ flag: '--mqtt-port', layer });
  }
  if (flags.cluster !== undefined) {
    out.push({
      flag: '--cluster',
      layer: { cluster: { enabled: true, redis_url: flags.cluster } },
    });
  }
  if (flags.nodeId !== undefined) {
    out.push({ flag: '--node-id', layer: { cluster: { node_id: flags.nodeId } } });
  }
  return out;
}

/** The flags' overrides as one layer (objects merged one level deep, as `layerSettings`). */
export function flagOverrides(flags: BrokerFlags): Json {
  const out: Json = {};
  for (const { layer } of flagLayers(flags)) {
    for (const [k, v] of Object.entries(layer)) {
      const prev = out[k];
      out[k] =
        typeof prev === 'object' && prev !== null && typeof v === 'object' && v !== null
          ? { ...prev, ...v }
          : v;
    }
  }
  return out;
}
