import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../../broker/config/load-settings';
import { DEFAULT_MAX_HTTP_BUFFER_SIZE } from '../../../broker/config/settings-schema';
import { SwitchboardError } from '../../../shared/error-catalogue';

describe('settings (protocol-admin §12.1)', () => {
  it('applies defaults and freezes', () => {
    const s = parseSettings({});
    expect(s.http_api.enabled).toBe(false);
    expect(s.idle_eviction).toEqual({ enabled: true, ttl_ms: 300_000, interval_ms: 60_000 });
    expect(s.max_http_buffer_size).toBe(DEFAULT_MAX_HTTP_BUFFER_SIZE);
    expect(Object.isFrozen(s)).toBe(true);
  });

  it('folds aliases, the canonical key winning', () => {
    const s = parseSettings({ httpApi: { enabled: true }, idle_eviction: { ttlMs: 50 } });
    expect(s.http_api.enabled).toBe(true);
    expect(s.idle_eviction.ttl_ms).toBe(50);
    const both = parseSettings({ http_api: { enabled: false }, httpApi: { enabled: true } });
    expect(both.http_api.enabled).toBe(false);
  });

  it('rejects unknown keys and wrong types with a clear error', () => {
    expect(() => parseSettings({ bogus: 1 })).toThrow(SwitchboardError);
    expect(() => parseSettings({ http_api: { enabled: 'yes' } })).toThrow(/http_api\.enabled/);
  });

  it('honours TYO_MQ_MAX_HTTP_BUFFER_SIZE (protocol-admin §13)', () => {
    expect(parseSettings({}, { TYO_MQ_MAX_HTTP_BUFFER_SIZE: '1024' }).max_http_buffer_size).toBe(
      1024,
    );
    expect(parseSettings({}, { TYO_MQ_MAX_HTTP_BUFFER_SIZE: 'x' }).max_http_buffer_size).toBe(
      DEFAULT_MAX_HTTP_BUFFER_SIZE,
    );
  });
});
