/**
 * The `app://switchboard/` protocol that serves the built renderer to Electron windows, with a
 * strict CSP. Using a custom standard scheme instead of `file://` gives the page a real origin
 * (so sender checks are exact) and no access to the rest of the file system.
 */
import { protocol } from 'electron';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const APP_SCHEME = 'app';
export const APP_HOST = 'switchboard';
export const APP_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** No network access at all: the renderer reaches the main process only through the preload bridge. */
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Must run before `app` is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** True for a URL of our own app (top-level page or asset). */
export function isAppUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}

/** Serves files of `rendererDir` on `app://switchboard/…`. Call once the app is ready. */
export function handleAppProtocol(rendererDir: string): void {
  const root = path.resolve(rendererDir);
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('Not found', { status: 404 });
    let relative = decodeURIComponent(url.pathname);
    if (relative === '/' || relative === '') relative = '/index.html';
    const file = path.resolve(root, `.${path.posix.normalize(relative)}`);
    if (!file.startsWith(root + path.sep)) return new Response('Not found', { status: 404 });
    const body = await readFile(file).catch(() => null);
    if (!body) return new Response('Not found', { status: 404 });
    const ext = path.extname(file).toLowerCase();
    const headers: Record<string, string> = {
      'Content-Type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
      'X-Content-Type-Options': 'nosniff',
    };
    if (ext === '.html') headers['Content-Security-Policy'] = APP_CSP;
    return new Response(body, { status: 200, headers });
  });
}
