/**
 * The web host's per-launch secret arrives in the URL fragment (`#token=<secret>`, never sent to
 * a server). It is moved to sessionStorage and removed from the address bar at once, so it does
 * not linger in history, bookmarks or screenshots, yet survives a reload of the tab.
 */
const STORAGE_KEY = 'switchboard.console-token';

/** Reads (and strips) `#token=` from the location, falling back to sessionStorage. */
export function takeConsoleToken(
  location: Pick<Location, 'hash' | 'pathname' | 'search'> = window.location,
  storage: Pick<Storage, 'getItem' | 'setItem'> = window.sessionStorage,
  history: Pick<History, 'replaceState'> = window.history,
): string | null {
  const fromHash = new URLSearchParams(location.hash.replace(/^#/, '')).get('token');
  if (fromHash) {
    storage.setItem(STORAGE_KEY, fromHash);
    history.replaceState(null, '', `${location.pathname}${location.search}`);
    return fromHash;
  }
  return storage.getItem(STORAGE_KEY);
}
