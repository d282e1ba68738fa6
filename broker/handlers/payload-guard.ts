/**
 * Structural checks run on every inbound payload before its schema (`spec/protocol-core.md`
 * §19): nesting depth, `__proto__` keys (prototype-pollution attempts), binary attachments
 * (§1.2: JSON only), and JSON strings for
 * the events that accept them (§1.2). Iterative, so a hostile depth cannot overflow the stack.
 *
 * Cost (issue 25 item 1): every inbound event is inspected, so the common clean payload is
 * first scanned without allocating (`isClean`: bounded recursion, own keys by `for…in`); only a
 * payload that scan cannot vouch for takes the iterative walk, which finds the refusal — the
 * same one, in the same order, as before the scan existed.
 */

/**
 * The refusal of a payload that carries binary data (a socket.io attachment: Buffer,
 * ArrayBuffer or typed array). The protocol is JSON only (`spec/protocol-core.md` §1.2); a
 * Buffer delivered live but replayed as `{"type":"Buffer","data":[…]}` is worse than a refusal.
 */
export const BINARY_PAYLOAD = 'payload carries binary data; the protocol is JSON only';

const isBinary = (node: object): boolean =>
  ArrayBuffer.isView(node) || node instanceof ArrayBuffer || node instanceof SharedArrayBuffer;

/** Levels the allocation-free scan recurses into before leaving the payload to the walk. */
const CLEAN_SCAN_DEPTH = 64;
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * True when `node` (at `depth`) and everything under it passes every check; false when
 * something fails or the scan went deeper than `CLEAN_SCAN_DEPTH` (the walk decides then).
 * Own enumerable string keys, as `Object.keys` gives them (`for…in` minus inherited keys).
 */
function isClean(node: object, depth: number, maxDepth: number): boolean {
  if (isBinary(node) || depth > maxDepth || depth > CLEAN_SCAN_DEPTH) return false;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const item: unknown = node[i];
      if (typeof item === 'object' && item !== null && !isClean(item, depth + 1, maxDepth)) {
        return false;
      }
    }
    return true;
  }
  const o = node as Record<string, unknown>;
  for (const key in o) {
    if (!hasOwn.call(o, key)) continue;
    if (key === '__proto__') return false;
    const child = o[key];
    if (typeof child === 'object' && child !== null && !isClean(child, depth + 1, maxDepth)) {
      return false;
    }
  }
  return true;
}

/** Why a payload was refused, or null when it passes. */
export function inspectPayload(value: unknown, maxDepth: number): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (isClean(value, 1, maxDepth)) return null;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    // Checked before walking: a Buffer's keys are its bytes.
    if (isBinary(node as object)) return BINARY_PAYLOAD;
    if (depth > maxDepth) return `payload nested deeper than ${maxDepth} levels`;
    if (Array.isArray(node)) {
      for (const item of node)
        if (typeof item === 'object' && item !== null) stack.push([item, depth + 1]);
      continue;
    }
    for (const key of Object.keys(node as object)) {
      if (key === '__proto__') return 'payload contains a "__proto__" key';
      const child = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return null;
}

export type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

/** Parses a JSON-string payload (§1.2); anything else is returned as is. */
export function parseJsonPayload(value: unknown): Parsed {
  if (typeof value !== 'string') return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) as unknown };
  } catch {
    return { ok: false, reason: 'payload is a string that is not valid JSON' };
  }
}
