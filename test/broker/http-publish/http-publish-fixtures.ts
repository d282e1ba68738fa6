/**
 * Shared set-up of the HTTP publish / SSE tests (`spec/protocol-extensions.md` §5.10): the
 * reference tokens, the settings that turn the feature on, and a `fetch` publisher.
 */
import type { Harness } from '../../helpers/broker-harness';

export const TOKENS = [
  { token: 'pub-acme', realm: 'acme', role: 'producer' },
  { token: 'sub-acme', realm: 'acme', role: 'consumer' },
  { token: 'pub-other', realm: 'other', role: 'producer' },
  { token: 'sub-other', realm: 'other', role: 'consumer' },
  { token: 'both-acme', realm: 'acme', role: 'both' },
];

export const ON = { http_publish: { enabled: true } };

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface PublishOptions {
  token?: string | null;
  body?: string;
  type?: string;
  method?: string;
  headers?: Record<string, string>;
}

/** `POST <path>` (or `method`) on the harness broker; resolves with status, headers and JSON body. */
export async function publish(
  h: Harness,
  path: string,
  o: PublishOptions = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  const token = o.token === undefined ? 'pub-acme' : o.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (o.type) headers['content-type'] = o.type;
  const method = o.method ?? 'POST';
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: o.body ?? '' }),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: res.headers,
  };
}

/** A JSON publish of `value`. */
export const publishJson = (h: Harness, path: string, value: unknown, token = 'pub-acme') =>
  publish(h, path, { token, body: JSON.stringify(value), type: 'application/json' });
