/**
 * Minimal HTTP(S) GET for scraping brokers: bounded body, hard timeout, no keep-alive.
 *
 * Why not `fetch`: its pooled keep-alive sockets outlive a scrape and can hold a broker's
 * `server.close()` (and process exit) open; here every request uses its own connection and
 * the body size is capped so a misbehaving remote cannot exhaust memory.
 */
import http from 'node:http';
import https from 'node:https';

/** A completed response. `body` is decoded as UTF-8. */
export interface HttpTextResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface HttpGetOptions {
  /** Abort after this many ms. Default 2000. */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** Abort when the body exceeds this many bytes. Default 4 MiB. */
  maxBytes?: number;
  /** For https: extra CA (PEM) and whether to refuse untrusted certificates (default true). */
  tls?: { ca?: string; rejectUnauthorized?: boolean };
}

/** GETs `url`. Rejects with an Error whose message says what failed (refused, timeout, too large). */
export function httpGetText(url: string, options: HttpGetOptions = {}): Promise<HttpTextResponse> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : null;
  if (!client) return Promise.reject(new Error(`Unsupported URL scheme: ${target.protocol}`));
  return new Promise((resolve, reject) => {
    const request = client.get(
      target,
      {
        agent: false,
        headers: { ...options.headers, connection: 'close' },
        timeout: timeoutMs,
        ...(target.protocol === 'https:' && options.tls
          ? {
              ...(options.tls.ca ? { ca: options.tls.ca } : {}),
              rejectUnauthorized: options.tls.rejectUnauthorized !== false,
            }
          : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            request.destroy(new Error(`Response larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    // `timeout` only covers socket idleness; this bounds the whole exchange.
    const deadline = setTimeout(
      () => request.destroy(new Error(`Timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.on('timeout', () => request.destroy(new Error(`Timed out after ${timeoutMs} ms`)));
    request.on('error', reject);
    request.on('close', () => clearTimeout(deadline));
  });
}
