/**
 * jose, loaded by the first JWT to verify: a broker whose clients present no JWT (auth off,
 * static tokens, keys) never needs it, and loading it at start-up cost every broker about
 * 1.5 MiB of RSS (`BENCH_ONLY=rss npm run bench`, docs/deployment.md "Sizing"). jose is ESM
 * only, hence the dynamic import; verification is asynchronous anyway.
 */
import type * as JoseModule from 'jose';

type Jose = typeof JoseModule;

let loading: Promise<Jose> | null = null;

/** The jose module (loaded once). @throws the loader's error when it is not installed. */
export function loadJose(): Promise<Jose> {
  loading ??= import('jose');
  return loading;
}
