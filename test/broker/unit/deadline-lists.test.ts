/**
 * ACK deadlines without a Node timer per delivery (`DeadlineLists`): entries expire in
 * deadline order, not before their deadline (within Node's 1 ms timer resolution), cancelled
 * entries never, an entry scheduled from an expiry callback still expires, and `clear`
 * stops everything.
 */
import { describe, expect, it } from 'vitest';
import { DeadlineLists, type DeadlineEntry } from '../../../broker/delivery/deadline-lists';

interface Entry extends DeadlineEntry {
  name: string;
}

const entry = (name: string): Entry => ({
  name,
  deadlineAt: 0,
  deadlinePrev: null,
  deadlineNext: null,
  deadlineList: null,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeadlineLists', () => {
  it('expires entries of several lengths in order, never early, skipping cancelled ones', async () => {
    const expired: Array<{ name: string; late: number }> = [];
    const lists = new DeadlineLists<Entry>((e) =>
      expired.push({ name: e.name, late: performance.now() - e.deadlineAt }),
    );
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(entry) as [Entry, Entry, Entry, Entry];
    lists.schedule(a, 30);
    lists.schedule(b, 30);
    lists.schedule(c, 60);
    lists.schedule(d, 10);
    expect(lists.cancel(b)).toBe(true);
    expect(lists.cancel(b)).toBe(false);
    expect(lists.isScheduled(a)).toBe(true);
    expect(lists.isScheduled(b)).toBe(false);
    await sleep(150);
    expect(expired.map((x) => x.name)).toEqual(['d', 'a', 'c']);
    for (const x of expired) expect(x.late).toBeGreaterThanOrEqual(-1);
    expect([a, c, d].some((e) => lists.isScheduled(e))).toBe(false);
  });

  it('expires an entry scheduled again from its own expiry, and moves a rescheduled one', async () => {
    const expired: string[] = [];
    const lists = new DeadlineLists<Entry>((e) => {
      expired.push(e.name);
      if (expired.length === 1) lists.schedule(e, 20);
    });
    const a = entry('a');
    const b = entry('b');
    lists.schedule(a, 20);
    lists.schedule(b, 20);
    lists.schedule(b, 100); // moved to a later deadline
    await sleep(70);
    expect(expired).toEqual(['a', 'a']);
    await sleep(80);
    expect(expired).toEqual(['a', 'a', 'b']);
  });

  it('clear() cancels every entry', async () => {
    const expired: string[] = [];
    const lists = new DeadlineLists<Entry>((e) => expired.push(e.name));
    const a = entry('a');
    lists.schedule(a, 10);
    lists.clear();
    expect(lists.isScheduled(a)).toBe(false);
    await sleep(40);
    expect(expired).toEqual([]);
  });
});
