/**
 * Security primitives of the web host: the per-launch secret, constant-time comparison, the
 * Host/Origin allow-list (DNS-rebinding and cross-site protection) and response headers with a
 * strict Content-Security-Policy.
 *
 * Source: ARCHITECTURE §1 (web host "guarded by a per-launch secret") and §3 (VS Code / Signal:
 * strict CSP, every sender validated).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { contentSecurityPolicy } from '../services/content-security-policy';

/** A fresh 256-bit secret, base64url (43 characters). */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares two secrets in constant time (hashing first so lengths never leak). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Extracts the token of `Authorization: Bearer <token>` (scheme case-insensitive), else null. */
export function bearerToken(headers: IncomingHttpHeaders): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1] ?? null;
}

/**
 * Which `Host` headers and `Origin`s the host accepts: the loopback names on its own port, plus
 * the bind address when it is a specific one. Anything else is a rebinding or cross-site attempt.
 */
export class HostPolicy {
  readonly hosts: ReadonlySet<string>;
  readonly origins: ReadonlySet<string>;

  constructor(bindHost: string, port: number) {
    const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
    const wildcard = bindHost === '0.0.0.0' || bindHost === '::' || bindHost === '';
    if (!wildcard) names.add(bindHost.includes(':') ? `[${bindHost}]` : bindHost);
    this.hosts = new Set([...names].map((name) => `${name}:${port}`));
    this.origins = new Set([...this.hosts].map((host) => `http://${host}`));
  }

  /** True for a `Host` header naming this host. */
  hostAllowed(host: string | undefined): boolean {
    return host !== undefined && this.hosts.has(host.toLowerCase());
  }

  /** True when there is no `Origin` (non-browser client) or it is one of ours. */
  originAllowed(origin: string | undefined): boolean {
    return origin === undefined || this.origins.has(origin.toLowerCase());
  }

  /** The CSP for served pages: only our own scripts, styles and event socket; no framing. */
  contentSecurityPolicy(): string {
    // CSP host-sources cannot express IPv6 literals; 'self' covers same-origin sockets (CSP 3).
    const sockets = [...this.hosts]
      .filter((host) => !host.startsWith('['))
      .map((host) => `ws://${host}`);
    return contentSecurityPolicy(["'self'", ...sockets]);
  }
}

/** Headers sent on every response. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // The secret travels in the URL fragment; never let any part of our URLs leak onwards.
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader(
    'Permissions-Policy',
    'camera=(), microphone=(), geolocation=(), usb=(), serial=()',
  );
}
