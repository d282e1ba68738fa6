/**
 * The console's Content-Security-Policy, one definition for both hosts: the Electron window
 * (`app://switchboard/`, no network at all) and the web host (its own origin and event socket).
 * The built renderer has no inline scripts or styles (vite.renderer.config.ts), so nothing here
 * needs `'unsafe-inline'` or `'unsafe-eval'`.
 *
 * Source: ARCHITECTURE §1 ("renderer … sandboxed, CSP, no Node") and §3 (Signal/VS Code: strict CSP).
 */

/** Directives shared by both hosts; `connect-src` is the only one that differs. */
const BASE_DIRECTIVES: readonly string[] = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "manifest-src 'self'",
  "worker-src 'none'",
  "frame-src 'none'",
  "child-src 'none'",
  "media-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
];

/**
 * A policy whose `connect-src` lists `connectSources` (CSP source expressions such as `'self'`
 * or `ws://127.0.0.1:17353`); an empty list gives `connect-src 'none'`.
 */
export function contentSecurityPolicy(connectSources: readonly string[]): string {
  const connect = connectSources.length > 0 ? connectSources.join(' ') : "'none'";
  return [...BASE_DIRECTIVES, `connect-src ${connect}`].join('; ');
}

/**
 * The Electron window's policy, sent as a header with every `app://switchboard/` page: the
 * renderer reaches the main process only through the preload bridge, so it may not fetch or
 * open sockets anywhere (`connect-src 'none'`).
 */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy([]);

/** Parses a policy into `directive → sources`, for checks (tests, diagnostics). */
export function parseContentSecurityPolicy(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) directives.set(name.toLowerCase(), sources);
  }
  return directives;
}
