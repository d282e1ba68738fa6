/**
 * Heap measurements for the bounds tests (issue 20): `heapAfterGc()` runs a full collection
 * first (V8's `gc`, exposed at run time), so deltas measure what is retained, not garbage.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** `heapUsed` in bytes after two full collections. */
export function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export const MiB = 1024 * 1024;
