/**
 * The shapes of the management command catalogue (`management-command-catalogue.ts`) and the
 * small builders its entries are written with. Parameters carry their canonical name only (the
 * broker also accepts the camelCase aliases of `spec/protocol-admin.md` §8.2; a form needs one).
 */

/** How a form edits a parameter: `json` is any JSON value typed as text, `enum` one of `options`. */
export type CommandParamType = 'string' | 'number' | 'boolean' | 'json' | 'enum';

export interface CommandParam {
  readonly name: string;
  readonly type: CommandParamType;
  readonly required?: boolean;
  readonly description: string;
  /** A key, token or secret: never shown back (previews, history and logs show `SECRET_MASK`). */
  readonly secret?: boolean;
  /** The choices of an `enum`. */
  readonly options?: readonly string[];
}

/**
 * `admin`: a global admin proof only (§6.5 "A"); `realm-manager`: a global admin, or the
 * manager key of the realm the command names ("A/R").
 */
export type CommandScope = 'admin' | 'realm-manager';

export interface ManagementCommandInfo {
  readonly name: string;
  /** One line on what it does. */
  readonly summary: string;
  /** The picker's group title. */
  readonly group: string;
  readonly scope: CommandScope;
  /** Takes data, access or sessions away: the console asks for a confirmation first. */
  readonly destructive: boolean;
  /** A Switchboard extension (a plain tyo-mq broker answers `unknown management command`). */
  readonly extension: boolean;
  readonly params: readonly CommandParam[];
}

/** What a secret parameter is shown as. */
export const SECRET_MASK = '••••';

export const realm = (description = 'Realm name', required = true): CommandParam => ({
  name: 'realm',
  type: 'string',
  required,
  description,
});
export const limit = (max: number, dflt: number): CommandParam => ({
  name: 'limit',
  type: 'number',
  description: `Page size, 1–${max.toLocaleString('en-GB')} (default ${dflt})`,
});
export const cursor: CommandParam = {
  name: 'cursor',
  type: 'string',
  description: 'next_cursor of the previous page',
};
export const ttl: CommandParam = {
  name: 'ttl',
  type: 'string',
  description: 'Lifetime: seconds or <n>[ms|s|m|h|d], e.g. 300, "30m", "2h", "7d"',
};
export const flag = (name: string, description: string, required = false): CommandParam => ({
  name,
  type: 'boolean',
  required,
  description,
});
export const text = (name: string, description: string, required = false): CommandParam => ({
  name,
  type: 'string',
  required,
  description,
});
export const secret = (name: string, description: string, required = false): CommandParam => ({
  name,
  type: 'string',
  required,
  description,
  secret: true,
});
export const E2EE = ['opportunistic', 'required'] as const;

/** A catalogue entry as written: `destructive` and `extension` default to false. */
export type CommandEntry = Omit<ManagementCommandInfo, 'extension' | 'destructive'> & {
  destructive?: boolean;
  extension?: boolean;
};

/** The picker's groups, in picker order. */
export const CommandGroup = {
  SETTINGS: 'Settings',
  REALMS: 'Realms',
  TOKENS: 'Tokens and validators',
  CLIENTS: 'Clients and sessions',
  QUEUES: 'Queues and dead letters',
  DATA: 'Retained, identities, requests',
  BROKER: 'Broker',
} as const;
