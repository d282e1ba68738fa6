/**
 * A remote profile's scrape target and TLS options: the base URL with its base path, the admin
 * token as the HTTP bearer (admin credentials only: a realm manager key is not an HTTP API
 * credential, §10.2), the CA file read once, and the clear-text opt-in.
 */
import { readFileSync } from 'node:fs';
import type { StoredProfile } from './connection-profiles';
import { parseBrokerUrl, type EndpointTls } from './broker-endpoint';
import type { ScrapeTarget } from './metrics-poller';

/**
 * The TLS options of `stored` (the CA file read on first use, then cached).
 * @throws Error naming the CA file when it cannot be read.
 */
export function profileTls(stored: StoredProfile): () => EndpointTls {
  let ca: string | undefined;
  return () => {
    if (stored.tls.caFile && ca === undefined) {
      try {
        ca = readFileSync(stored.tls.caFile, 'utf8');
      } catch (error) {
        throw new Error(
          `Cannot read the CA file ${stored.tls.caFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          { cause: error },
        );
      }
    }
    return { ...(ca ? { ca } : {}), rejectUnauthorized: stored.tls.rejectUnauthorized };
  };
}

/** The scrape target of a remote profile, asked before every scrape. */
export function remoteTarget(
  stored: StoredProfile,
  secret: () => string | null,
): () => ScrapeTarget {
  const endpoint = parseBrokerUrl(stored.url);
  const tls = profileTls(stored);
  return () => ({
    baseUrl: endpoint.baseUrl,
    bearerToken: stored.credential.kind === 'admin' ? secret() : null,
    tls: endpoint.secure ? tls() : undefined,
    allowInsecureBearer: stored.allowInsecureBearer,
  });
}
