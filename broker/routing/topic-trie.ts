/**
 * Topic index: MQTT-style patterns stored in a trie so that matching a topic costs time in
 * proportion to its levels and the wildcards on its path, not to the number of patterns.
 *
 * Matching rules (`spec/protocol-core.md` §11, Note 11-A):
 * - levels are split on `/`; empty levels are ordinary levels; case-insensitive;
 * - `+` matches exactly one level, which may be empty;
 * - `#` as the last level matches the rest, including nothing (`a/#` matches `a`);
 * - a `#` that is not last, and wildcard characters inside a level (`a+`), are literal;
 * - a pattern whose first level is `+` or `#` does not match a topic whose first level
 *   starts with `$` (MQTT-4.7.2-1); `$SYS/#` still matches `$SYS/x`.
 */

interface TrieNode {
  literal: Map<string, TrieNode>;
  plus: TrieNode | null;
  /** Values of patterns that end here with a final `#`. */
  hash: Set<string> | null;
  /** Values of patterns that end exactly at this node. */
  end: Set<string> | null;
}

const newNode = (): TrieNode => ({ literal: new Map(), plus: null, hash: null, end: null });

/** A multimap from topic patterns to values (subscription keys). */
export class TopicTrie {
  private readonly root = newNode();
  private size = 0;

  /** Number of (pattern, value) pairs stored. */
  get count(): number {
    return this.size;
  }

  /** Adds `value` under `pattern` (lowercased here). Adding the same pair twice is a no-op. */
  add(pattern: string, value: string): void {
    const levels = pattern.toLowerCase().split('/');
    let node = this.root;
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i]!;
      const last = i === levels.length - 1;
      if (last && level === '#') {
        node.hash ??= new Set();
        if (!node.hash.has(value)) this.size++;
        node.hash.add(value);
        return;
      }
      node = level === '+' ? (node.plus ??= newNode()) : this.child(node, level);
    }
    node.end ??= new Set();
    if (!node.end.has(value)) this.size++;
    node.end.add(value);
  }

  /** Removes `value` from `pattern`; prunes emptied branches. Unknown pairs are ignored. */
  remove(pattern: string, value: string): void {
    const levels = pattern.toLowerCase().split('/');
    const path: Array<[TrieNode, string | null]> = [];
    let node: TrieNode | undefined = this.root;
    for (let i = 0; i < levels.length && node; i++) {
      const level = levels[i]!;
      if (i === levels.length - 1 && level === '#') {
        if (node.hash?.delete(value)) this.size--;
        if (node.hash?.size === 0) node.hash = null;
        this.prune(path, node);
        return;
      }
      path.push([node, level]);
      node = level === '+' ? (node.plus ?? undefined) : node.literal.get(level);
    }
    if (!node) return;
    if (node.end?.delete(value)) this.size--;
    if (node.end?.size === 0) node.end = null;
    this.prune(path, node);
  }

  /** Values of every pattern matching `topic`, each once. */
  match(topic: string): Set<string> {
    const out = new Set<string>();
    const levels = topic.toLowerCase().split('/');
    const dollar = levels[0]!.startsWith('$');
    this.walk(this.root, levels, 0, out, dollar);
    return out;
  }

  /** Whether any pattern matches `topic` (`match(topic).size > 0` without collecting). */
  matchesAny(topic: string): boolean {
    if (this.size === 0) return false;
    const levels = topic.toLowerCase().split('/');
    return this.any(this.root, levels, 0, levels[0]!.startsWith('$'));
  }

  private any(node: TrieNode, levels: string[], i: number, dollar: boolean): boolean {
    const atRoot = i === 0;
    if (node.hash && !(atRoot && dollar)) return true;
    if (i === levels.length) return node.end !== null;
    const next = node.literal.get(levels[i]!);
    if (next && this.any(next, levels, i + 1, dollar)) return true;
    return node.plus !== null && !(atRoot && dollar) && this.any(node.plus, levels, i + 1, dollar);
  }

  private walk(node: TrieNode, levels: string[], i: number, out: Set<string>, dollar: boolean) {
    const atRoot = i === 0;
    if (node.hash && !(atRoot && dollar)) for (const v of node.hash) out.add(v);
    if (i === levels.length) {
      if (node.end) for (const v of node.end) out.add(v);
      return;
    }
    const level = levels[i]!;
    const next = node.literal.get(level);
    if (next) this.walk(next, levels, i + 1, out, dollar);
    if (node.plus && !(atRoot && dollar)) this.walk(node.plus, levels, i + 1, out, dollar);
  }

  private child(node: TrieNode, level: string): TrieNode {
    let next = node.literal.get(level);
    if (!next) {
      next = newNode();
      node.literal.set(level, next);
    }
    return next;
  }

  private prune(path: Array<[TrieNode, string | null]>, leaf: TrieNode): void {
    let node = leaf;
    for (let i = path.length - 1; i >= 0; i--) {
      if (node.end || node.hash || node.plus || node.literal.size > 0) return;
      const [parent, level] = path[i]!;
      if (level === '+') parent.plus = null;
      else if (level !== null) parent.literal.delete(level);
      node = parent;
    }
  }
}
