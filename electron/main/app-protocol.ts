/**
 * Registers the `app://switchboard/` protocol that serves the built renderer to Electron windows
 * (app-files.ts: files and CSP header; app-origin.ts: the origin). Electron glue only.
 */
import { protocol } from 'electron';
import { APP_SCHEME } from './app-origin';
import { serveAppFile } from './app-files';

/** Must run before `app` is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** Serves files of `rendererDir` on `app://switchboard/…`. Call once the app is ready. */
export function handleAppProtocol(rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => serveAppFile(rendererDir, request.url));
}
