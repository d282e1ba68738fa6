/**
 * What `app://switchboard/…` answers: files of the built renderer, never anything outside it,
 * every HTML page with the strict CSP header (content-security-policy.ts). Pure (Node only):
 * app-protocol.ts hands it Electron's requests; tests call it directly.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTENT_SECURITY_POLICY } from '../services/content-security-policy';
import { APP_HOST } from './app-origin';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Headers of every response; `Content-Security-Policy` on all of them (pages and assets). */
export function appResponseHeaders(file: string): Record<string, string> {
  const ext = path.extname(file).toLowerCase();
  return {
    'Content-Type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

/**
 * Serves `requestUrl` (`app://switchboard/<path>`) from `rendererDir`: `/` is `index.html`;
 * another host, a path escaping the directory or a missing file answer 404.
 */
export async function serveAppFile(rendererDir: string, requestUrl: string): Promise<Response> {
  const root = path.resolve(rendererDir);
  const notFound = (): Response => new Response('Not found', { status: 404 });
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return notFound();
  }
  if (url.host !== APP_HOST) return notFound();
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname);
  } catch {
    return notFound();
  }
  if (relative === '/' || relative === '') relative = '/index.html';
  if (relative.includes('\0')) return notFound();
  const file = path.resolve(root, `.${path.posix.normalize(relative)}`);
  if (!file.startsWith(root + path.sep)) return notFound();
  const body = await readFile(file).catch(() => null);
  if (!body) return notFound();
  return new Response(body, { status: 200, headers: appResponseHeaders(file) });
}
