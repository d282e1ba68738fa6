/**
 * ACK deadlines without a Node timer per delivery (`DeadlineLists`): entries expire in
 * deadline order, not before their deadline (within Node's 1 ms timer resolution), cancelled
 * entries never, an entry scheduled from an expiry callback still expires, and `clear`
 * stops everything.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

/**
 * Fake timers and a fake `performance.now()`: the lists' timers fire at exactly the virtual
 * times the test names, however loaded the machine is (issue 22, flaky tests).
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const advance = (ms: number) => vi.advanceTimersByTime(ms);

describe('DeadlineLists', () => {
  it('expires entries of several lengths in order, never early, skipping cancelled ones', () => {
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
    advance(9);
    expect(expired).toEqual([]);
    advance(1);
    expect(expired.map((x) => x.name)).toEqual(['d']);
    advance(19);
    expect(expired.map((x) => x.name)).toEqual(['d']);
    advance(31);
    expect(expired.map((x) => x.name)).toEqual(['d', 'a', 'c']);
    for (const x of expired) expect(x.late).toBeGreaterThanOrEqual(-1);
    expect([a, c, d].some((e) => lists.isScheduled(e))).toBe(false);
  });

  it('expires an entry scheduled again from its own expiry, and moves a rescheduled one', () => {
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
    advance(20);
    expect(expired).toEqual(['a']);
    advance(20);
    expect(expired).toEqual(['a', 'a']);
    advance(59);
    expect(expired).toEqual(['a', 'a']);
    advance(1);
    expect(expired).toEqual(['a', 'a', 'b']);
  });

  it('clear() cancels every entry', () => {
    const expired: string[] = [];
    const lists = new DeadlineLists<Entry>((e) => expired.push(e.name));
    const a = entry('a');
    lists.schedule(a, 10);
    lists.clear();
    expect(lists.isScheduled(a)).toBe(false);
    advance(40);
    expect(expired).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
