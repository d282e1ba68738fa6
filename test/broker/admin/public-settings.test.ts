/** The §8.4 public view's pure parts: URL credential redaction and the namespaces listing. */
import { describe, expect, it } from 'vitest';
import { publicNamespaces, redactUrl, redactUrlsDeep } from '../../../broker/admin/public-settings';

describe('public settings view', () => {
  it('redacts the password, else the user name, of URLs only', () => {
    expect(redactUrl('redis://:pw@cache:6379/0')).toBe('redis://:%3Credacted%3E@cache:6379/0');
    expect(redactUrl('https://token@auth.example/x')).toBe('https://%3Credacted%3E@auth.example/x');
    expect(redactUrl('https://auth.example/x')).toBe('https://auth.example/x');
    expect(redactUrl('not a url')).toBe('not a url');
    expect(redactUrlsDeep({ a: ['postgres://u:p@h/db'], b: 3, c: { d: 'x' } })).toEqual({
      a: ['postgres://u:%3Credacted%3E@h/db'],
      b: 3,
      c: { d: 'x' },
    });
  });

  it('lists /remote as built-in and configured namespaces with their module path', () => {
    expect(publicNamespaces(undefined)).toEqual({ '/remote': { module: 'built-in' } });
    expect(
      publicNamespaces({
        chat: './chat.js',
        '/games': { module: './games.js', options: { secret: 'x' } },
        '/remote': './evil.js',
        '/broken': { options: {} },
      }),
    ).toEqual({
      '/remote': { module: 'built-in' },
      '/chat': { module: './chat.js' },
      '/games': { module: './games.js' },
    });
  });
});
