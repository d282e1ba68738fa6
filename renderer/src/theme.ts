/**
 * Light and dark themes. The stylesheet follows the system (`prefers-color-scheme`, through
 * `color-scheme` + `light-dark()` in styles.css) unless the user picked a theme with the top-bar
 * toggle; the choice is kept in localStorage and applied as `data-theme` on <html>.
 * Storage and the root element are parameters, so this runs in tests without a DOM.
 */

export type ThemePreference = 'system' | 'light' | 'dark';

export const THEME_STORAGE_KEY = 'switchboard.theme';
export const THEME_ORDER: readonly ThemePreference[] = ['system', 'light', 'dark'];

/** The part of `Storage` used here; any access may throw (storage disabled). */
export interface ThemeStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The part of `document.documentElement` used here. */
export interface ThemeRoot {
  dataset: Record<string, string | undefined>;
}

/** The stored preference; `system` when none, unknown or unreadable. */
export function readThemePreference(storage: ThemeStorage | null): ThemePreference {
  try {
    const value = storage?.getItem(THEME_STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

/** Applies `preference` to `root` and stores it (`system` removes the key). Never throws. */
export function setThemePreference(
  root: ThemeRoot,
  storage: ThemeStorage | null,
  preference: ThemePreference,
): void {
  applyTheme(root, preference);
  try {
    if (preference === 'system') storage?.removeItem(THEME_STORAGE_KEY);
    else storage?.setItem(THEME_STORAGE_KEY, preference);
  } catch {
    // Storage disabled: the theme still applies to this page.
  }
}

/** `data-theme="light|dark"` forces a theme; no attribute follows the system. */
export function applyTheme(root: ThemeRoot, preference: ThemePreference): void {
  if (preference === 'system') delete root.dataset.theme;
  else root.dataset.theme = preference;
}

/** The preference after `current` in the toggle's cycle: system → light → dark → system. */
export function nextThemePreference(current: ThemePreference): ThemePreference {
  return THEME_ORDER[(THEME_ORDER.indexOf(current) + 1) % THEME_ORDER.length] ?? 'system';
}

/** The page's localStorage, or null where it is not available. */
export function browserThemeStorage(): ThemeStorage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
