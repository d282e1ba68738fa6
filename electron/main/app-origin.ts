/**
 * The origin of our own pages in the desktop app: `app://switchboard/`. A custom standard scheme
 * instead of `file://` gives the page a real origin, so sender and navigation checks are exact,
 * and no access to the rest of the file system. Pure (no Electron runtime import): tested under Node.
 */

export const APP_SCHEME = 'app';
export const APP_HOST = 'switchboard';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

/** True for a URL of our own app (top-level page or asset); false for anything else or garbage. */
export function isAppUrl(url: string | undefined | null): boolean {
  if (!url) return false;
  try {
    const parsed = new URL(url);
    return (
      parsed.protocol === `${APP_SCHEME}:` &&
      parsed.host === APP_HOST &&
      parsed.username === '' &&
      parsed.password === '' &&
      parsed.port === ''
    );
  } catch {
    return false;
  }
}
