/**
 * Section URLs as hash routes: `#/<section>` (e.g. `#/dead-letters`), optionally with a query
 * (`#/connections?edit=<connectionId>`). Hash routes work the same in the web host (http://) and
 * in Electron (app://), and never reach a server. The web host's `#token=<secret>` fragment is not
 * a route: `api/console-token.ts` takes it out of the address bar (replaceState, before the first
 * render and on `hashchange`), so the token never lands in history; a fragment that is not a route
 * of a known section shows the first section (Overview).
 */
import { useCallback, useSyncExternalStore } from 'react';

/** A parsed route: the section id (null when the fragment names none) and its query. */
export interface HashRoute {
  section: string | null;
  params: URLSearchParams;
}

/** `#/realms?x=1` → `{section: 'realms', params: x=1}`; `''`, `#token=…`, `#/` → section null. */
export function parseHashRoute(hash: string): HashRoute {
  const match = /^#?\/([^?]*)(?:\?(.*))?$/.exec(hash);
  if (!match) return { section: null, params: new URLSearchParams() };
  let section: string | null = null;
  try {
    section = decodeURIComponent(match[1] ?? '') || null;
  } catch {
    section = null;
  }
  return { section, params: new URLSearchParams(match[2] ?? '') };
}

/** The fragment of a section, e.g. `sectionHash('dead-letters')` → `#/dead-letters`. */
export function sectionHash(section: string, params?: Record<string, string>): string {
  const query = params ? new URLSearchParams(params).toString() : '';
  return `#/${encodeURIComponent(section)}${query ? `?${query}` : ''}`;
}

/** Goes to a section as a new history entry (back returns to the current view). */
export function goToSection(section: string, params?: Record<string, string>): void {
  window.location.hash = sectionHash(section, params);
}

const subscribe = (onChange: () => void): (() => void) => {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
};
const currentHash = (): string => window.location.hash;

/**
 * The section shown now: the route's section when it is one of `known`, else `known[0]`;
 * re-renders on every fragment change (links, back/forward, a typed URL).
 */
export function useHashRoute(known: readonly string[]): {
  section: string;
  params: URLSearchParams;
} {
  const hash = useSyncExternalStore(subscribe, currentHash);
  const route = parseHashRoute(hash);
  const section =
    route.section !== null && known.includes(route.section) ? route.section : known[0]!;
  return { section, params: route.params };
}

/** One query parameter of the current route (`#/connections?edit=x` → `edit` = `x`), or null. */
export function useRouteParam(name: string): string | null {
  const hash = useSyncExternalStore(subscribe, currentHash);
  return parseHashRoute(hash).params.get(name);
}

/** Drops the route's query (e.g. once a one-shot `?edit=` was acted on), without a new entry. */
export function useClearRouteParams(): () => void {
  return useCallback(() => {
    const { section } = parseHashRoute(window.location.hash);
    if (!section) return;
    window.history.replaceState(window.history.state, '', sectionHash(section));
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  }, []);
}
