/**
 * One provider HTTP/1.1 request with the limits of `spec/protocol-extensions.md` §6.8: a
 * timeout (PUSH_HTTP_TIMEOUT_MS, 5 s, for the whole exchange), no redirects (node:http never
 * follows them), and at most PUSH_RESP_MAX_BYTES (8 KiB) of the response body read; the rest
 * is discarded. TLS is verified normally. Used by `unifiedpush` (with the SSRF `lookup`) and
 * FCM (token and send endpoints).
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ExtensionLimit } from '../../../shared/protocol-extensions';

export interface BoundedRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Ms; default PUSH_HTTP_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Bytes of the body kept; default PUSH_RESP_MAX_BYTES. */
  maxBytes?: number;
  lookup?: RequestOptions['lookup'];
}

export interface BoundedResponse {
  status: number;
  /** At most `maxBytes` of the body, as UTF-8. */
  body: string;
}

/** Thrown for a timeout or a network error (never carries the URL). */
export class RequestFailed extends Error {
  constructor(readonly kind: 'timeout' | 'network' | 'unsafe') {
    super(`push request failed: ${kind}`);
  }
}

/** POSTs `body` to `url`; rejects with `RequestFailed` on a timeout or network error. */
export function boundedPost(req: BoundedRequest): Promise<BoundedResponse> {
  const maxBytes = req.maxBytes ?? ExtensionLimit.PUSH_RESP_MAX_BYTES;
  const timeoutMs = req.timeoutMs ?? ExtensionLimit.PUSH_HTTP_TIMEOUT_MS;
  const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err: RequestFailed | null, res?: BoundedResponse) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(res!);
    };
    const client = send(
      req.url,
      {
        method: 'POST',
        headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
        ...(req.lookup ? { lookup: req.lookup } : {}),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept >= maxBytes) return;
          const part = chunk.subarray(0, maxBytes - kept);
          chunks.push(part);
          kept += part.length;
          // Enough read: the rest is not waited for.
          if (kept >= maxBytes) {
            finish(null, { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
            res.destroy();
          }
        });
        res.on('end', () =>
          finish(null, { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
        res.on('error', () => finish(new RequestFailed('network')));
      },
    );
    const timer = setTimeout(() => {
      finish(new RequestFailed('timeout'));
      client.destroy();
    }, timeoutMs);
    client.on('error', (err: NodeJS.ErrnoException) =>
      finish(new RequestFailed(err.code === 'EPUSHUNSAFE' ? 'unsafe' : 'network')),
    );
    client.end(req.body);
  });
}
