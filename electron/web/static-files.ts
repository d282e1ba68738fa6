/**
 * Serves the built renderer (`renderer/dist`) for the web host: GET/HEAD only, paths confined to
 * the directory, a CSP on HTML, long-lived caching only for Vite's content-hashed `/assets/*`.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { errorInfo, type ErrorInfo } from '../../shared/error-catalogue';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Answers `req` from `rootDir` (`/` → `index.html`); `csp` goes on HTML. Returns null once the
 * file is sent, else the error for the caller to answer: `SWB_ERR_NOT_FOUND` for anything missing
 * or outside the directory, `SWB_ERR_VALIDATION` for an undecodable path, `SWB_ERR_INTERNAL` when
 * the renderer has not been built.
 */
export async function serveStatic(
  req: IncomingMessage,
  res: ServerResponse,
  rootDir: string,
  pathname: string,
  csp: string,
): Promise<ErrorInfo | null> {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return errorInfo('SWB_ERR_VALIDATION', 'Bad path');
  }
  if (relative.includes('\0')) return errorInfo('SWB_ERR_VALIDATION', 'Bad path');
  if (relative === '/' || relative === '') relative = '/index.html';
  const root = path.resolve(rootDir);
  const file = path.resolve(root, `.${path.posix.normalize(relative)}`);
  if (file !== root && !file.startsWith(root + path.sep)) return errorInfo('SWB_ERR_NOT_FOUND');
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) {
    if (relative === '/index.html') {
      return errorInfo(
        'SWB_ERR_INTERNAL',
        'The console UI has not been built (npm run build:renderer)',
      );
    }
    return errorInfo('SWB_ERR_NOT_FOUND');
  }
  const ext = path.extname(file).toLowerCase();
  res.statusCode = 200;
  res.setHeader('Content-Type', CONTENT_TYPES[ext] ?? 'application/octet-stream');
  res.setHeader('Content-Length', info.size);
  if (ext === '.html') {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-store');
  } else if (relative.startsWith('/assets/')) {
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  } else {
    res.setHeader('Cache-Control', 'no-cache');
  }
  if (req.method === 'HEAD') {
    res.end();
    return null;
  }
  await new Promise<void>((resolve) => {
    const stream = createReadStream(file);
    stream.on('error', () => {
      res.destroy();
      resolve();
    });
    res.on('close', resolve);
    stream.pipe(res);
  });
  return null;
}
