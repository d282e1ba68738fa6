/**
 * The web host's per-launch secret arrives in the URL fragment (`#token=<secret>`, never sent to
 * a server). It is moved to sessionStorage and removed from the address bar at once, so it does
 * not linger in history, bookmarks or screenshots, yet survives a reload of the tab. A new link
 * opened in the same tab only changes the fragment (no reload): `console-session.ts` reads it
 * again on `hashchange`.
 */
const STORAGE_KEY = 'switchboard.console-token';

export type TokenLocation = Pick<Location, 'hash' | 'pathname' | 'search'>;
export type TokenStorage = Pick<Storage, 'getItem' | 'setItem'>;
export type TokenHistory = Pick<History, 'replaceState'>;

/**
 * Reads a `#token=` from the fragment: stores it, strips the fragment from the address bar and
 * returns it. Null (and nothing touched) when the fragment carries no token.
 */
export function takeTokenFromFragment(
  location: TokenLocation,
  storage: TokenStorage,
  history: TokenHistory,
): string | null {
  const fromHash = new URLSearchParams(location.hash.replace(/^#/, '')).get('token');
  if (!fromHash) return null;
  storage.setItem(STORAGE_KEY, fromHash);
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  return fromHash;
}

/** Reads (and strips) `#token=` from the location, falling back to sessionStorage. */
export function takeConsoleToken(
  location: TokenLocation = window.location,
  storage: TokenStorage = window.sessionStorage,
  history: TokenHistory = window.history,
): string | null {
  return takeTokenFromFragment(location, storage, history) ?? storage.getItem(STORAGE_KEY);
}
