/**
 * ioredis, loaded on first use. Only `storage: "redis"` and a cluster (`cluster.enabled`) open
 * Redis connections; loading the client at start-up anyway cost every other broker several MiB
 * of RSS (`BENCH_ONLY=rss npm run bench`, docs/deployment.md "Sizing"). Loaded with `require`
 * (ioredis is CommonJS) so the classes that open links keep their synchronous constructors.
 */
import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';

const load = createRequire(import.meta.url);
let loaded: typeof IORedis | null = null;

/** The ioredis module (loaded once). @throws the loader's error when it is not installed. */
export function ioredis(): typeof IORedis {
  loaded ??= load('ioredis') as typeof IORedis;
  return loaded;
}
