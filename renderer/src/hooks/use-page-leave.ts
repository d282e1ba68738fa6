/**
 * Runs `onLeave` when the page goes away (`pagehide`: a closed tab or window, a reload, a
 * navigation). React's effect clean-ups do not run then, so a live tap or topic tree the page
 * started would wait for the host's orphan sweep — and with another console page still open,
 * that sweep never fires (issue 27 newcomer trial, finding 9). The web console's calls are sent
 * with `keepalive`, so a stop made here reaches the host after the page is gone.
 */
import { useEffect, useRef } from 'react';

export function usePageLeave(onLeave: () => void): void {
  const latest = useRef(onLeave);
  useEffect(() => {
    latest.current = onLeave;
  });
  useEffect(() => {
    const handler = () => latest.current();
    window.addEventListener('pagehide', handler);
    return () => window.removeEventListener('pagehide', handler);
  }, []);
}
