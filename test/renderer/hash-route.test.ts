/** Section hash routes (renderer/src/navigation/hash-route.ts): what is and is not a route. */
import { describe, expect, it } from 'vitest';
import { parseHashRoute, sectionHash } from '../../renderer/src/navigation/hash-route';

describe('section hash routes', () => {
  it('reads the section and its query', () => {
    expect(parseHashRoute('#/dead-letters').section).toBe('dead-letters');
    const route = parseHashRoute('#/connections?edit=remote-1');
    expect(route.section).toBe('connections');
    expect(route.params.get('edit')).toBe('remote-1');
  });

  it('treats no fragment, the console token and malformed text as no route', () => {
    for (const hash of ['', '#', '#/', '#token=abc', 'token=abc', '#/%E0%A4%A'])
      expect(parseHashRoute(hash).section).toBeNull();
  });

  it('writes what it reads', () => {
    expect(sectionHash('realms')).toBe('#/realms');
    const hash = sectionHash('connections', { edit: 'remote 1' });
    expect(parseHashRoute(hash).section).toBe('connections');
    expect(parseHashRoute(hash).params.get('edit')).toBe('remote 1');
  });
});
