/**
 * The local broker's HTTP publish switches (renderer/src/views/local-broker/http-publish-model.ts;
 * issue 28, console): read with the broker's defaults, written back into the settings text with
 * the block's other keys and the rest of the file kept; text that is not a JSON object turns
 * the switches off (null) instead of being overwritten.
 */
import { describe, expect, it } from 'vitest';
import {
  HTTP_PUBLISH_VIEW_DEFAULTS,
  readHttpPublish,
  withHttpPublish,
} from '../../renderer/src/views/local-broker/http-publish-model';
import { HTTP_PUBLISH_DEFAULTS } from '../../broker/http-publish/http-publish-schema';

describe('http publish switches model', () => {
  it('shows the broker defaults when the block is absent', () => {
    expect(readHttpPublish('{"port": 17352}')).toEqual(HTTP_PUBLISH_VIEW_DEFAULTS);
    expect(HTTP_PUBLISH_VIEW_DEFAULTS).toMatchObject({
      sseMaxPerRealm: HTTP_PUBLISH_DEFAULTS.sse_max_per_realm,
      sseMaxPerIp: HTTP_PUBLISH_DEFAULTS.sse_max_per_ip,
      history: HTTP_PUBLISH_DEFAULTS.history,
    });
  });

  it('writes a change into the block, keeping everything else', () => {
    const text = JSON.stringify({ port: 1, http_publish: { sse_keepalive_ms: 5_000 } });
    const next = withHttpPublish(text, { enabled: true, sseMaxPerIp: 3 })!;
    expect(JSON.parse(next)).toEqual({
      port: 1,
      http_publish: { sse_keepalive_ms: 5_000, enabled: true, sse_max_per_ip: 3 },
    });
    expect(readHttpPublish(next)).toEqual({
      ...HTTP_PUBLISH_VIEW_DEFAULTS,
      enabled: true,
      sseMaxPerIp: 3,
    });
    const off = withHttpPublish(next, { enabled: false, history: 'subscribed' })!;
    expect(readHttpPublish(off)).toMatchObject({ enabled: false, history: 'subscribed' });
  });

  it('leaves text that is not a JSON object alone', () => {
    expect(readHttpPublish('{"port": ')).toBeNull();
    expect(withHttpPublish('[1]', { enabled: true })).toBeNull();
  });
});
