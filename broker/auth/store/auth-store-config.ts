/**
 * The `auth_store` setting (`spec/protocol-admin.md` §12.1, §14): `true` (default file name),
 * `"<file>"`, `false`, or `{enabled, filename|file|path}`; and where its file lives.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

/** Default auth-store file name (§14). */
export const DEFAULT_AUTH_STORE_FILENAME = 'tyo-mq.auth.sqlite';

export const AuthStoreSettingSchema = z.union([
  z.boolean(),
  z.string().min(1),
  z
    .object({
      enabled: z.boolean().optional(),
      filename: z.string().min(1).optional(),
      file: z.string().min(1).optional(),
      path: z.string().min(1).optional(),
    })
    .strict(),
]);
export type AuthStoreSetting = z.infer<typeof AuthStoreSettingSchema>;

/**
 * The auth-store file `setting` asks for, or null when the store is off. A configured relative
 * name resolves against `dataDir` (like the message store's file); the default name lives next
 * to the settings file when there is one, else in `dataDir`. An object without `enabled` is on
 * when it names a file.
 */
export function authStoreFile(
  setting: AuthStoreSetting | undefined,
  settingsFile: string | undefined,
  dataDir: string,
): string | null {
  let name: string | undefined;
  if (setting === undefined || setting === false) return null;
  if (setting === true) name = undefined;
  else if (typeof setting === 'string') name = setting;
  else {
    name = setting.filename ?? setting.file ?? setting.path;
    if (setting.enabled === false || (setting.enabled === undefined && name === undefined)) {
      return null;
    }
  }
  if (name !== undefined) return isAbsolute(name) ? name : resolve(dataDir, name);
  const base = settingsFile ? dirname(resolve(settingsFile)) : resolve(dataDir);
  return resolve(base, DEFAULT_AUTH_STORE_FILENAME);
}
