/**
 * The `realm_keys` management command (Switchboard extension, docs/management.md "Realm keys for
 * definitions export"; issue 27): per configured realm the SHA-256 hex of its pre-shared key and
 * of its manager key — the §8.4 public view says only `*_configured` — and, with `reveal: true`,
 * the keys themselves, for the console's encrypted definitions export. Admin only; read-only.
 *
 * Reply: `{ok, realms: {<name>: {key_sha256: string|null, manager_key_sha256: string|null,
 * key?: string|null, manager_key?: string|null}}}` (the last two only with `reveal`).
 */
import type { AuthConfig } from '../auth/auth-schema';
import { tokenHash } from '../auth/auth-state';
import { CommandError, type CommandBody } from './command-types';

const secretOf = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

/** `realm_keys` `{reveal?: boolean}` → `{ok, realms}`. Errors: 400 `reveal must be a boolean`. */
export function realmKeys(auth: Readonly<AuthConfig>, body: CommandBody) {
  const reveal = body.reveal ?? false;
  if (typeof reveal !== 'boolean') throw new CommandError(400, 'reveal must be a boolean');
  const realms: Record<string, Record<string, string | null>> = {};
  for (const [name, config] of Object.entries(auth.realms)) {
    const record = config as Record<string, unknown>;
    const key = secretOf(record.key);
    const managerKey = secretOf(record.manager_key);
    const entry: Record<string, string | null> = {
      key_sha256: key === null ? null : tokenHash(key),
      manager_key_sha256: managerKey === null ? null : tokenHash(managerKey),
    };
    if (reveal) {
      entry.key = key;
      entry.manager_key = managerKey;
    }
    realms[name] = entry;
  }
  return { ok: true as const, realms };
}
