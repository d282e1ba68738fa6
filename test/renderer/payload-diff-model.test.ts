/** Payload diffs (issue 27): structural JSON diff and the line-diff fallback. */
import { describe, expect, it } from 'vitest';
import {
  diffJson,
  diffLines,
  diffPayloads,
  shortJson,
} from '../../renderer/src/components/payload-diff-model';

describe('diffJson', () => {
  it('lists added, removed and changed paths', () => {
    const { changes, more } = diffJson(
      { id: 1, name: 'a', tags: ['x', 'y'], nested: { keep: true, gone: 1 }, 'odd key': 1 },
      { id: 2, name: 'a', tags: ['x'], nested: { keep: true, fresh: null }, 'odd key': 1 },
    );
    expect(more).toBe(0);
    expect(changes).toEqual([
      { path: '$.id', kind: 'changed', before: 1, after: 2 },
      { path: '$.tags[1]', kind: 'removed', before: 'y' },
      { path: '$.nested.gone', kind: 'removed', before: 1 },
      { path: '$.nested.fresh', kind: 'added', after: null },
    ]);
  });

  it('treats a change of type as one change and quotes odd keys', () => {
    expect(diffJson({ 'a b': [1] }, { 'a b': { 0: 1 } }).changes).toEqual([
      { path: '$["a b"]', kind: 'changed', before: [1], after: { 0: 1 } },
    ]);
    expect(diffJson(1, 1).changes).toEqual([]);
    expect(diffJson('a', 'b').changes).toEqual([
      { path: '$', kind: 'changed', before: 'a', after: 'b' },
    ]);
  });

  it('caps the listing and counts the rest', () => {
    const a = Array.from({ length: 30 }, (_, i) => i);
    const b = a.map((n) => n + 1);
    const { changes, more } = diffJson(a, b, 10);
    expect(changes).toHaveLength(10);
    expect(more).toBe(20);
  });
});

describe('diffLines', () => {
  it('aligns common lines', () => {
    expect(diffLines('a\nb\nc\nd', 'a\nc\nd\ne')).toEqual([
      { op: 'same', text: 'a' },
      { op: 'removed', text: 'b' },
      { op: 'same', text: 'c' },
      { op: 'same', text: 'd' },
      { op: 'added', text: 'e' },
    ]);
  });

  it('keeps head and tail but does not align a middle that is too big', () => {
    const lines = diffLines('h\nx1\nx2\nt', 'h\ny1\ny2\nt', 1);
    expect(lines.map((l) => `${l.op}:${l.text}`)).toEqual([
      'same:h',
      'removed:x1',
      'removed:x2',
      'added:y1',
      'added:y2',
      'same:t',
    ]);
  });
});

describe('diffPayloads', () => {
  it('diffs JSON structurally and other text by line', () => {
    const json = diffPayloads('{"a":1}', '{"a":2}');
    expect(json.kind).toBe('json');
    const text = diffPayloads('{"a":1', '{"a":2');
    expect(text).toEqual({
      kind: 'lines',
      lines: [
        { op: 'removed', text: '{"a":1' },
        { op: 'added', text: '{"a":2' },
      ],
    });
  });

  it('shortens values for the listing', () => {
    expect(shortJson('x'.repeat(200), 10)).toBe('"xxxxxxxx…');
    expect(shortJson({ a: 1 })).toBe('{"a":1}');
  });
});
