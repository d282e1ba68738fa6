/**
 * The three-way merge of settings documents (docs/cluster.md "Admin state in a cluster"):
 * concurrent changes on two nodes are both kept; on a true conflict this node's value wins.
 */
import { describe, expect, it } from 'vitest';
import { mergeDocuments } from '../../broker/cluster/settings-merge';

const base = {
  limits: { enabled: true, messages_per_second: 10 },
  auth: {
    realms: { default: { required: false }, alpha: { required: true } },
    tokens: [
      { token: 'admin', realm: '*', role: 'admin' },
      { token: 't1', realm: 'alpha', role: 'consumer' },
    ],
  },
};

describe('mergeDocuments', () => {
  it('keeps realms, tokens and keys changed on either side', () => {
    const mine = structuredClone(base) as typeof base & Record<string, unknown>;
    (mine.auth.realms as Record<string, unknown>).mine = { required: true };
    mine.auth.tokens.push({ token: 't-mine', realm: 'alpha', role: 'producer' });
    mine.limits.messages_per_second = 20;
    const theirs = structuredClone(base);
    (theirs.auth.realms as Record<string, unknown>).theirs = { required: false };
    theirs.auth.tokens = theirs.auth.tokens.filter((t) => t.token !== 't1');
    (theirs.auth.realms.alpha as Record<string, unknown>).require_acceptance = true;
    expect(mergeDocuments(base, mine, theirs)).toEqual({
      limits: { enabled: true, messages_per_second: 20 },
      auth: {
        realms: {
          default: { required: false },
          alpha: { required: true, require_acceptance: true },
          theirs: { required: false },
          mine: { required: true },
        },
        tokens: [
          { token: 'admin', realm: '*', role: 'admin' },
          { token: 't-mine', realm: 'alpha', role: 'producer' },
        ],
      },
    });
  });

  it('applies removals of either side, and prefers this side on a true conflict', () => {
    const mine = structuredClone(base) as Record<string, unknown> & typeof base;
    delete (mine.auth.realms as Record<string, unknown>).alpha;
    mine.limits.enabled = false;
    const theirs = structuredClone(base);
    theirs.limits.enabled = true;
    theirs.limits.messages_per_second = 5;
    const merged = mergeDocuments(base, mine, theirs) as typeof base;
    expect(merged.auth.realms).toEqual({ default: { required: false } });
    expect(merged.limits).toEqual({ enabled: false, messages_per_second: 5 });
    const conflict = structuredClone(base);
    conflict.limits.messages_per_second = 99;
    const mine2 = structuredClone(base);
    mine2.limits.messages_per_second = 1;
    expect((mergeDocuments(base, mine2, conflict) as typeof base).limits.messages_per_second).toBe(
      1,
    );
  });

  it('takes the other side whole when only one side changed', () => {
    const theirs = { ...base, http_api: { enabled: true } };
    expect(mergeDocuments(base, base, theirs)).toBe(theirs);
    expect(mergeDocuments(base, theirs, base)).toBe(theirs);
  });
});
