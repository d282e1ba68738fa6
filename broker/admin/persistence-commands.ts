/**
 * `set_persistence` (`spec/protocol-admin.md` §8.2): validates a storage backend request and
 * returns the new `{storage, storage_options}` (the `persistence` part of §8.4). Pure.
 *
 * Hardening (§8.4 note, §18 item 9): `custom` loads an arbitrary module path on the server, so
 * it is refused unless the operator's settings file sets the top-level `allow_custom_storage:
 * true`.
 */
import { CommandError, pick, type CommandBody } from './command-types';
import type { PersistenceView } from './public-settings';
import { isRedisUrl } from '../storage/redis-options';

const BACKENDS = new Set(['memory', 'sqlite', 'redis', 'custom']);
/** `storage_options.fallback` values (§16.1: `redis` means `sqlite`). */
const FALLBACKS = new Set(['memory', 'sqlite', 'redis']);

/** Settings key that allows remote `custom` storage modules. */
export const ALLOW_CUSTOM_STORAGE_KEY = 'allow_custom_storage';

export function setPersistence(body: CommandBody, allowCustom: boolean): PersistenceView {
  const rawStorage = pick(body, 'storage', 'backend') ?? 'memory';
  const storage = typeof rawStorage === 'string' ? rawStorage.toLowerCase() : '';
  if (!BACKENDS.has(storage)) throw new CommandError(400, 'unsupported storage backend');
  const rawOptions = pick(body, 'storage_options', 'storageOptions', 'options');
  const options: Record<string, unknown> =
    typeof rawOptions === 'object' && rawOptions !== null && !Array.isArray(rawOptions)
      ? structuredClone(rawOptions as Record<string, unknown>)
      : {};
  const defaultTtl = pick(body, 'default_ttl') ?? options.default_ttl;
  if (defaultTtl !== undefined) {
    if (typeof defaultTtl !== 'number' || !Number.isFinite(defaultTtl)) {
      throw new CommandError(400, 'default_ttl must be a number');
    }
    options.default_ttl = defaultTtl;
  }
  const copy = (...keys: string[]) => {
    const value = pick(body, ...keys);
    if (value !== undefined) options[keys[0]!] = value;
  };
  if (storage === 'sqlite') copy('filename', 'path');
  if (storage === 'redis') {
    copy('url');
    copy('prefix');
    // `spec/protocol-extensions.md` Note 7-B: an unknown fallback is refused now, not found
    // at the next probe (where the reference leaves the old store in place without a word).
    const fallback = options.fallback;
    if (
      fallback !== undefined &&
      fallback !== true &&
      !FALLBACKS.has(String(fallback).toLowerCase())
    ) {
      throw new CommandError(400, 'unsupported storage backend');
    }
    const url = options.url;
    if (url !== undefined && (typeof url !== 'string' || !isRedisUrl(url))) {
      throw new CommandError(400, 'storage_options.url must be a redis:// or rediss:// URL');
    }
  }
  if (storage === 'custom') {
    copy('module', 'module_path');
    const module = options.module ?? options.module_path;
    if (typeof module !== 'string' || module === '') {
      throw new CommandError(400, 'custom storage requires a module path');
    }
    if (!allowCustom) {
      throw new CommandError(
        403,
        `custom storage modules are disabled (set ${ALLOW_CUSTOM_STORAGE_KEY}: true in the settings file)`,
      );
    }
  }
  return { storage, storage_options: options };
}
