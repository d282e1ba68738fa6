/**
 * Pieces of interest routing (issue 21) without Redis: the field encoding, the trie's
 * `matchesAny`, and the registry's live count and interest hooks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interestField, parseField } from '../../broker/cluster/interest-fields';
import { RealmDirectory } from '../../broker/routing/realm-directory';
import { TopicTrie } from '../../broker/routing/topic-trie';
import { fakeSocket } from '../helpers/interest-nodes';

describe('interest fields', () => {
  it('round-trip any realm and value, ":" included', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('k', 't', 'g', 'l', 'a', 'A' as const),
        fc.string(),
        fc.string(),
        (kind, realm, value) => {
          expect(parseField(interestField(kind, realm, value))).toEqual({ kind, realm, value });
        },
      ),
    );
    expect(parseField('epoch')).toBeNull();
    expect(parseField('rev')).toBeNull();
    expect(parseField('k:9:short:x')).toBeNull();
  });
});

describe('TopicTrie.matchesAny', () => {
  it('agrees with match() on random patterns and topics', () => {
    const level = fc.constantFrom('a', 'b', '', '+', '#', '$s', 'A');
    const path = fc.array(level, { minLength: 1, maxLength: 4 }).map((l) => l.join('/'));
    fc.assert(
      fc.property(fc.array(path, { maxLength: 5 }), path, (patterns, topic) => {
        const trie = new TopicTrie();
        patterns.forEach((p, i) => trie.add(p, `v${i}`));
        expect(trie.matchesAny(topic)).toBe(trie.match(topic).size > 0);
      }),
    );
  });
});

describe('registry interest hooks', () => {
  it('report live, key, topic and group transitions only, for the registry in use', () => {
    const realms = new RealmDirectory();
    const seen: string[] = [];
    realms.interest = (realm, kind, value) => seen.push(`${realm} ${kind} ${value}`);
    const r = realms.get('r', true);
    const c = r.bindConsumer('c', fakeSocket('s1'), 'c');
    r.bindConsumer('c', fakeSocket('s2'), 'c'); // already online: no transition
    r.bindProducer('p', fakeSocket('s1'), 'p');
    expect(r.liveCount).toBe(2);
    r.setOffline(c);
    r.setOffline(c);
    expect(r.liveCount).toBe(1);
    r.deleteProducer('p');
    expect(r.liveCount).toBe(0);
    const record = {
      key: 'p-a/+',
      consumer: 'c',
      producer: 'p',
      pattern: 'a/+',
      consumerId: 'c',
      durable: false,
      ackRequired: false,
      ackTimeoutMs: 1000,
      retry: { maxAttempts: 1, delayMs: 1, backoff: 'fixed' as const },
      group: 'g',
      mode: 'topic' as const,
      announced: false,
    };
    r.upsertSubscription(record);
    r.upsertSubscription({ ...record, consumer: 'c2' }); // no transition
    r.removeSubscription('p-a/+', 'c');
    r.removeSubscription('p-a/+', 'c2');
    realms.delete('r');
    r.bindConsumer('late', fakeSocket('s3'), 'late'); // deleted registry: ignored
    expect(seen).toEqual([
      'r live ',
      'r live ',
      'r key p-a/+',
      'r topic p-a/+',
      'r group g',
      'r topic p-a/+',
      'r group g',
      'r key p-a/+',
      'r realm ',
    ]);
  });
});
