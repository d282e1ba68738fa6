/**
 * The broker's live settings: one validated, frozen `Settings` object at a time, replaced whole
 * on reload, with listeners told of every change. Handlers read `current` at each check, so a
 * reloaded `limits` or `http_api` applies to the next message or request
 * (`spec/protocol-admin.md` §12.3 "limits pick up within 1 s; auth rules apply to the next
 * check").
 *
 * Some keys are read once, when the broker is built (the listen port, the message store, the
 * socket.io engine options, timers); a reload that changes them is committed but reported as
 * needing a restart (`restartKeys`).
 */
import type { Logger } from '../logging/logger';
import { stableJson } from '../../shared/admin-signature';
import { UNSUPPORTED_KEY_MESSAGE, unsupportedKeys, type Settings } from './settings-schema';

/** Top-level keys read only at start-up: changing them takes a restart. */
export const RESTART_KEYS: readonly string[] = [
  'port',
  'storage',
  'storage_options',
  'default_ttl',
  'max_http_buffer_size',
  'input_limits',
  'idle_eviction',
  'cluster',
  'node_id',
  'namespaces',
  'cors',
  'ping_interval',
  'ping_timeout',
  'allow_eio3',
  'per_message_deflate',
];

export type SettingsListener = (next: Settings, prev: Settings) => void;

/** The restart-only keys whose values differ between `prev` and `next`, sorted. */
export function restartKeys(prev: Settings, next: Settings): string[] {
  const a = prev as Record<string, unknown>;
  const b = next as Record<string, unknown>;
  return RESTART_KEYS.filter((k) => stableJson(a[k]) !== stableJson(b[k]));
}

export class LiveSettings {
  private value: Settings;
  private readonly listeners = new Set<SettingsListener>();

  constructor(
    initial: Settings,
    private readonly logger?: Logger,
  ) {
    this.value = initial;
  }

  /** The settings in force; read it at each use rather than keeping a copy. */
  get current(): Settings {
    return this.value;
  }

  /**
   * Commits `next` (already validated) and notifies listeners. Restart-only keys that changed
   * are logged at warn level with the message "needs restart"; so is each key the reload
   * brought in that this build accepts but ignores (`unsupportedKeys`).
   * @returns the restart-only keys that changed.
   */
  replace(next: Settings): string[] {
    const prev = this.value;
    this.value = next;
    const pending = restartKeys(prev, next);
    if (pending.length > 0) {
      this.logger?.warn(
        { keys: pending },
        'settings changed that take effect only after a restart (needs restart)',
      );
    }
    const known = new Set(unsupportedKeys(prev));
    for (const key of unsupportedKeys(next)) {
      if (!known.has(key)) this.logger?.warn({ key }, UNSUPPORTED_KEY_MESSAGE);
    }
    for (const listener of this.listeners) {
      try {
        listener(next, prev);
      } catch (err) {
        this.logger?.error({ err }, 'settings change listener failed');
      }
    }
    return pending;
  }

  /** Registers a listener; returns its removal. */
  onChange(listener: SettingsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
