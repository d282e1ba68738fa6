/** The theme preference: stored per browser, applied as data-theme, system by default. */
import { describe, expect, it } from 'vitest';
import {
  applyTheme,
  nextThemePreference,
  readThemePreference,
  setThemePreference,
  THEME_STORAGE_KEY,
  type ThemeRoot,
  type ThemeStorage,
} from '../../renderer/src/theme';

class MemoryStorage implements ThemeStorage {
  readonly items = new Map<string, string>();
  getItem = (key: string) => this.items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.items.set(key, value);
  removeItem = (key: string) => void this.items.delete(key);
}

const throwing: ThemeStorage = {
  getItem: () => {
    throw new Error('SecurityError');
  },
  setItem: () => {
    throw new Error('QuotaExceededError');
  },
  removeItem: () => {
    throw new Error('SecurityError');
  },
};

describe('theme preference', () => {
  it('defaults to the system theme, also for unknown values and unavailable storage', () => {
    const storage = new MemoryStorage();
    expect(readThemePreference(storage)).toBe('system');
    storage.setItem(THEME_STORAGE_KEY, 'purple');
    expect(readThemePreference(storage)).toBe('system');
    expect(readThemePreference(null)).toBe('system');
    expect(readThemePreference(throwing)).toBe('system');
  });

  it('stores a chosen theme and sets data-theme; system removes both', () => {
    const storage = new MemoryStorage();
    const root: ThemeRoot = { dataset: {} };
    setThemePreference(root, storage, 'dark');
    expect(root.dataset.theme).toBe('dark');
    expect(readThemePreference(storage)).toBe('dark');
    setThemePreference(root, storage, 'light');
    expect(root.dataset.theme).toBe('light');
    setThemePreference(root, storage, 'system');
    expect(root.dataset.theme).toBeUndefined();
    expect(storage.items.has(THEME_STORAGE_KEY)).toBe(false);
  });

  it('still applies the theme when storage refuses writes', () => {
    const root: ThemeRoot = { dataset: {} };
    expect(() => setThemePreference(root, throwing, 'dark')).not.toThrow();
    expect(root.dataset.theme).toBe('dark');
    applyTheme(root, 'system');
    expect(root.dataset.theme).toBeUndefined();
  });

  it('cycles system → light → dark → system', () => {
    expect(nextThemePreference('system')).toBe('light');
    expect(nextThemePreference('light')).toBe('dark');
    expect(nextThemePreference('dark')).toBe('system');
  });
});
