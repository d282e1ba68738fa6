import { describe, expect, it } from 'vitest';
import { TopicTrie } from '../../../broker/routing/topic-trie';

/** Reference matcher written straight from spec §11 + Note 11-A, to cross-check the trie. */
function specMatch(pattern: string, topic: string): boolean {
  const p = pattern.toLowerCase();
  const t = topic.toLowerCase();
  const pl = p.split('/');
  const tl = t.split('/');
  if ((pl[0] === '+' || pl[0] === '#') && tl[0]!.startsWith('$')) return false;
  if (p === t) return true;
  for (let i = 0; i < pl.length; i++) {
    if (pl[i] === '#' && i === pl.length - 1) return true;
    if (i >= tl.length) return false;
    if (pl[i] === '+') continue;
    if (pl[i] !== tl[i]) return false;
  }
  return pl.length === tl.length;
}

const matches = (pattern: string, topic: string): boolean => {
  const trie = new TopicTrie();
  trie.add(pattern, 'k');
  return trie.match(topic).has('k');
};

describe('TopicTrie (spec §11)', () => {
  it.each([
    ['org/acme/machine/+/cmd', 'org/acme/machine/m-01/cmd', true],
    ['org/acme/machine/+/cmd', 'org/acme/machine/m-01/status', false],
    ['org/acme/machine/+/cmd', 'org/acme/machine/m-01/x/cmd', false],
    ['org/acme/#', 'org/acme/alert', true],
    ['org/acme/#', 'org/acme/machine/m-01/cmd', true],
    ['org/acme/#', 'org/beta/alert', false],
    ['a/#', 'a', true],
    ['a/#', 'a/', true],
    ['#', '', true],
    ['#', 'single', true],
    ['a/+', 'a/', true],
    ['a/+', 'a', false],
    ['a/+/c', 'a//c', true],
    ['a//c', 'a//c', true],
    ['a/#/b', 'a/#/b', true],
    ['a/#/b', 'a/x/b', false],
    ['a+', 'a+', true],
    ['a+', 'ab', false],
    ['a/+', 'A/B', true],
    ['#', '$SYS/x', false],
    ['+/x', '$SYS/x', false],
    ['$SYS/#', '$SYS/x', true],
    ['$sys/+', '$SYS/x', true],
    ['x/$y', 'x/$y', true],
    ['+/$y', 'x/$y', true],
  ])('%s vs %s → %s', (pattern, topic, expected) => {
    expect(matches(pattern, topic)).toBe(expected);
    expect(specMatch(pattern, topic)).toBe(expected);
  });

  it('agrees with the spec matcher on random patterns and topics', () => {
    const levels = ['a', 'b', '', '+', '#', '$s', 'A'];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const make = (wild: boolean) =>
      Array.from({ length: 1 + rand(4) }, () => {
        const l = levels[rand(levels.length)]!;
        return !wild && (l === '+' || l === '#') ? 'c' : l;
      }).join('/');
    const trie = new TopicTrie();
    const patterns = Array.from({ length: 300 }, () => make(true));
    patterns.forEach((p, i) => trie.add(p, `k${i}`));
    for (let n = 0; n < 500; n++) {
      const topic = make(false);
      const got = [...trie.match(topic)].sort();
      const expected = patterns.flatMap((p, i) => (specMatch(p, topic) ? [`k${i}`] : [])).sort();
      expect(got, topic).toEqual(expected);
    }
  });

  it('removes patterns and prunes, keeping others', () => {
    const trie = new TopicTrie();
    trie.add('a/+/c', 'k1');
    trie.add('a/#', 'k2');
    trie.add('a/b/c', 'k3');
    expect(trie.count).toBe(3);
    trie.remove('a/+/c', 'k1');
    expect([...trie.match('a/b/c')].sort()).toEqual(['k2', 'k3']);
    trie.remove('a/#', 'k2');
    trie.remove('a/b/c', 'k3');
    trie.remove('a/b/c', 'missing');
    expect(trie.count).toBe(0);
    expect(trie.match('a/b/c').size).toBe(0);
  });
});
