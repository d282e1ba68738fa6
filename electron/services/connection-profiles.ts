/**
 * Remote broker profiles, persisted as JSON in the console's data directory WITHOUT secrets
 * (`connections.json`, mode 0600, rewritten atomically: temp file + rename), with each profile's
 * credential in the SecretStore under `connection.<id>.secret`.
 *
 * Source: issue 12 ("Connections … persisted atomically in the app's data directory"; "Profile
 * export/import never includes secrets"). No method logs or returns a secret.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  ConnectionProfileFieldsSchema,
  type ConnectionProfileFields,
} from '../../shared/console-api-connections';
import { SwitchboardError } from '../../shared/error-catalogue';
import { parseBrokerUrl } from './broker-endpoint';
import type { SecretStore } from './secret-store';

/** File name of the profile list inside the data directory. */
export const CONNECTIONS_FILE_NAME = 'connections.json';

/** A stored profile: its id plus the secret-free fields. */
export type StoredProfile = ConnectionProfileFields & { id: string };

const FileSchema = z.object({
  version: z.literal(1),
  profiles: z.array(ConnectionProfileFieldsSchema.extend({ id: z.string().min(1).max(128) })),
});

/** SecretStore key of a profile's credential. */
export const profileSecretName = (id: string): string => `connection.${id}.secret`;

export class ConnectionProfileStore {
  readonly file: string;
  private profiles: StoredProfile[];

  /** Loads `<dataDir>/connections.json` (none yet: no profiles). @throws Error if it is corrupt. */
  constructor(
    dataDir: string,
    private readonly secrets: SecretStore,
  ) {
    this.file = path.join(dataDir, CONNECTIONS_FILE_NAME);
    this.profiles = this.read();
  }

  /** Every stored profile, in insertion order. */
  list(): StoredProfile[] {
    return this.profiles.map((profile) => ({ ...profile }));
  }

  /** One profile. @throws SwitchboardError `SWB_ERR_NOT_FOUND`. */
  get(id: string): StoredProfile {
    const profile = this.profiles.find((entry) => entry.id === id);
    if (!profile) throw new SwitchboardError('SWB_ERR_NOT_FOUND', `Unknown connection: ${id}`);
    return { ...profile };
  }

  /** The profile's secret, or null. Stays in this process. */
  secret(id: string): string | null {
    return this.secrets.get(profileSecretName(id));
  }

  /**
   * Adds a profile (a fresh id) and stores its secret, if any.
   * @throws SwitchboardError `SWB_ERR_VALIDATION` (bad URL, duplicate name, a credential without
   *   its secret unless `allowMissingSecret`, as for imported profiles).
   */
  add(
    fields: ConnectionProfileFields,
    secret?: string,
    options: { allowMissingSecret?: boolean } = {},
  ): StoredProfile {
    this.validate(fields, null, secret !== undefined || options.allowMissingSecret === true);
    const profile: StoredProfile = { ...fields, id: `remote-${randomBytes(6).toString('hex')}` };
    // The secret first: a profile on disk without its secret is fixable, a stray secret is not seen.
    if (secret !== undefined) this.secrets.set(profileSecretName(profile.id), secret);
    this.save([...this.profiles, profile]);
    return { ...profile };
  }

  /**
   * Replaces a profile's fields; `secret` replaces the stored one, `clearSecret` forgets it.
   * @throws SwitchboardError `SWB_ERR_NOT_FOUND`, `SWB_ERR_VALIDATION`.
   */
  edit(
    id: string,
    fields: ConnectionProfileFields,
    secret?: string,
    clearSecret = false,
  ): StoredProfile {
    this.get(id);
    const hasSecret = secret !== undefined || (!clearSecret && this.secret(id) !== null);
    this.validate(fields, id, hasSecret);
    if (secret !== undefined) this.secrets.set(profileSecretName(id), secret);
    else if (clearSecret) this.secrets.delete(profileSecretName(id));
    const profile: StoredProfile = { ...fields, id };
    this.save(this.profiles.map((entry) => (entry.id === id ? profile : entry)));
    return { ...profile };
  }

  /** Removes a profile and its secret. @throws SwitchboardError `SWB_ERR_NOT_FOUND`. */
  remove(id: string): void {
    this.get(id);
    this.save(this.profiles.filter((entry) => entry.id !== id));
    this.secrets.delete(profileSecretName(id));
  }

  /** A name not used by any profile (nor `reserved`): `name`, else `name (2)`, `name (3)`… */
  freeName(name: string, reserved: string[] = []): string {
    const taken = new Set([...this.profiles.map((p) => p.name.toLowerCase()), ...reserved]);
    if (!taken.has(name.toLowerCase())) return name;
    for (let n = 2; ; n += 1) {
      const candidate = `${name.slice(0, 90)} (${n})`;
      if (!taken.has(candidate.toLowerCase())) return candidate;
    }
  }

  private validate(fields: ConnectionProfileFields, id: string | null, hasSecret: boolean): void {
    parseBrokerUrl(fields.url);
    const clash = this.profiles.find(
      (entry) => entry.id !== id && entry.name.toLowerCase() === fields.name.toLowerCase(),
    );
    if (clash || fields.name.toLowerCase() === 'local broker') {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        `A connection named ${JSON.stringify(fields.name)} already exists`,
      );
    }
    if (fields.credential.kind !== 'none' && !hasSecret) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        fields.credential.kind === 'admin'
          ? 'An admin-token connection needs its admin token'
          : 'A realm-manager connection needs the realm manager key',
      );
    }
  }

  private save(profiles: StoredProfile[]): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify({ version: 1, profiles }, null, 2)}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
      renameSync(temp, this.file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    chmodSync(this.file, 0o600);
    this.profiles = profiles;
  }

  private read(): StoredProfile[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const parsed = FileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.file} is not a console connections file`);
    return parsed.data.profiles;
  }
}
