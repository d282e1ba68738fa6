/**
 * Every management command a Switchboard broker accepts (`AUTH_MANAGEMENT_COMMAND`): the tyo-mq
 * core commands of `spec/protocol-admin.md` §8.2 and Switchboard's extensions
 * (docs/management.md), with who may sign them, whether they take something away, and their
 * parameters. The console's Command console builds its picker and forms from it and masks the
 * `secret` parameters everywhere it shows them.
 *
 * `test/shared/management-command-catalogue.test.ts` fails when the broker's dispatcher
 * (`broker/admin/management-commands.ts` `COMMANDS`) and this list disagree.
 */
import { CORE_COMMANDS } from './management-commands-core';
import { SWITCHBOARD_COMMANDS } from './management-commands-switchboard';
import { CommandGroup, SECRET_MASK, type ManagementCommandInfo } from './management-command-params';

export type {
  CommandParam,
  CommandParamType,
  CommandScope,
  ManagementCommandInfo,
} from './management-command-params';
export { SECRET_MASK } from './management-command-params';

const GROUP_ORDER: readonly string[] = Object.values(CommandGroup);

/** The catalogue, in picker order: by group, core commands before extensions within one. */
export const MANAGEMENT_COMMANDS: readonly ManagementCommandInfo[] = [
  ...CORE_COMMANDS.map((e) => ({ ...e, destructive: e.destructive ?? false, extension: false })),
  ...SWITCHBOARD_COMMANDS.map((e) => ({
    ...e,
    destructive: e.destructive ?? false,
    extension: true,
  })),
].sort((a, b) => GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group));

const BY_NAME = new Map(MANAGEMENT_COMMANDS.map((c) => [c.name, c]));

/** The command of `name` (own entries only), or undefined. */
export function managementCommand(name: unknown): ManagementCommandInfo | undefined {
  return typeof name === 'string' ? BY_NAME.get(name) : undefined;
}

/**
 * `params` with every `secret` parameter of `command` that holds a value replaced by
 * `SECRET_MASK` (an empty value stays empty: "clear the key" is not a secret). Other values are
 * kept as they are. Unknown commands: every string is masked, since nothing says which are safe.
 */
export function maskSecretParams(
  command: string,
  params: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const info = managementCommand(command);
  const secrets = new Set(info?.params.filter((p) => p.secret).map((p) => p.name));
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    const hide = info ? secrets.has(key) : typeof value === 'string';
    masked[key] =
      hide && value !== '' && value !== null && value !== undefined ? SECRET_MASK : value;
  }
  return masked;
}
