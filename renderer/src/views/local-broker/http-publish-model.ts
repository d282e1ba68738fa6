/**
 * The HTTP publish switches of the local broker's settings (issue 28, console): reads the
 * `http_publish` block (`spec/protocol-extensions.md` §5.1, docs/http-publish.md) from the
 * settings file's text and writes a change back into it, so the switches and the text editor
 * are one thing — the host validates and saves the text as always.
 *
 * Defaults as the broker's schema (`broker/http-publish/http-publish-schema.ts`): off, 50 streams
 * per realm, 10 per IP, `history: "always"`. Values the switches do not know are kept as they are.
 */

/** What the switches show. */
export interface HttpPublishView {
  enabled: boolean;
  sseMaxPerRealm: number;
  sseMaxPerIp: number;
  history: 'always' | 'subscribed';
}

/** A change from the switches (only the fields set are written). */
export type HttpPublishPatch = Partial<HttpPublishView>;

export const HTTP_PUBLISH_VIEW_DEFAULTS: HttpPublishView = {
  enabled: false,
  sseMaxPerRealm: 50,
  sseMaxPerIp: 10,
  history: 'always',
};

type Json = Record<string, unknown>;

function parseObject(text: string): Json | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

const positive = (v: unknown, fallback: number): number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : fallback;

/** The switches' values, or null when the text is not a JSON object (fix the text first). */
export function readHttpPublish(text: string): HttpPublishView | null {
  const settings = parseObject(text);
  if (!settings) return null;
  const raw = settings.http_publish;
  const block = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Json) : {};
  const d = HTTP_PUBLISH_VIEW_DEFAULTS;
  return {
    enabled: block.enabled === true,
    sseMaxPerRealm: positive(block.sse_max_per_realm, d.sseMaxPerRealm),
    sseMaxPerIp: positive(block.sse_max_per_ip, d.sseMaxPerIp),
    history: block.history === 'subscribed' ? 'subscribed' : 'always',
  };
}

/**
 * The text with `patch` written into its `http_publish` block (created when absent, its other
 * keys kept), pretty-printed with two spaces like the file the console writes; null when the
 * text is not a JSON object.
 */
export function withHttpPublish(text: string, patch: HttpPublishPatch): string | null {
  const settings = parseObject(text);
  if (!settings) return null;
  const raw = settings.http_publish;
  const block: Json =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as Json) } : {};
  if (patch.enabled !== undefined) block.enabled = patch.enabled;
  if (patch.sseMaxPerRealm !== undefined) block.sse_max_per_realm = patch.sseMaxPerRealm;
  if (patch.sseMaxPerIp !== undefined) block.sse_max_per_ip = patch.sseMaxPerIp;
  if (patch.history !== undefined) block.history = patch.history;
  return `${JSON.stringify({ ...settings, http_publish: block }, null, 2)}\n`;
}
