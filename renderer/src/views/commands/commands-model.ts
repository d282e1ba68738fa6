/**
 * The Command console's form model: the values a generated form holds (text for strings,
 * numbers, JSON and enums; `''` / `'true'` / `'false'` for an optional boolean, a boolean for a
 * required one), turned into command parameters — an empty field is not sent — and back from a
 * history entry (a masked secret comes back empty: the operator types it again).
 */
import {
  MANAGEMENT_COMMANDS,
  SECRET_MASK,
  type ManagementCommandInfo,
} from '../../../../shared/management-command-catalogue';

export type FormValues = Record<string, string | boolean>;

/** The initial values of a command's form. */
export function emptyValues(info: ManagementCommandInfo): FormValues {
  const values: FormValues = {};
  for (const p of info.params) values[p.name] = p.type === 'boolean' && p.required ? false : '';
  return values;
}

/** The parameters of `values`, or the first field that does not parse. */
export function toParams(
  info: ManagementCommandInfo,
  values: FormValues,
): { params: Record<string, unknown> } | { error: string } {
  const params: Record<string, unknown> = {};
  for (const p of info.params) {
    const raw = values[p.name];
    if (typeof raw === 'boolean') {
      params[p.name] = raw;
      continue;
    }
    const text = (raw ?? '').trim();
    if (text === '') {
      if (p.required && p.type !== 'string') return { error: `${p.name} is required` };
      // A required string may be empty on purpose (none is today); an optional one is left out.
      if (p.required) params[p.name] = raw ?? '';
      continue;
    }
    if (p.type === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: `${p.name} must be a number` };
      params[p.name] = n;
    } else if (p.type === 'boolean') {
      params[p.name] = text === 'true';
    } else if (p.type === 'json') {
      try {
        params[p.name] = JSON.parse(text) as unknown;
      } catch {
        return { error: `${p.name} must be JSON, e.g. ["a","b"] or {"k":1}` };
      }
    } else {
      // Strings are sent as typed (a key may begin or end with a space).
      params[p.name] = p.type === 'string' ? (raw as string) : text;
    }
  }
  return { params };
}

/** The form values of a history entry's parameters (masked secrets empty). */
export function fromParams(
  info: ManagementCommandInfo,
  params: Record<string, unknown>,
): FormValues {
  const values = emptyValues(info);
  for (const p of info.params) {
    if (!Object.hasOwn(params, p.name)) continue;
    const v = params[p.name];
    if (p.secret && v === SECRET_MASK) values[p.name] = '';
    else if (p.type === 'boolean') values[p.name] = p.required ? v === true : String(v);
    else if (p.type === 'json') values[p.name] = JSON.stringify(v);
    else values[p.name] = v === null || v === undefined ? '' : String(v);
  }
  return values;
}

/** The catalogue's commands matching `query` (name, summary or group), in groups. */
export function groupedCommands(
  query: string,
): { group: string; commands: ManagementCommandInfo[] }[] {
  const q = query.trim().toLowerCase();
  const groups: { group: string; commands: ManagementCommandInfo[] }[] = [];
  for (const c of MANAGEMENT_COMMANDS) {
    const hay = `${c.name} ${c.name.replaceAll('_', ' ')} ${c.summary} ${c.group}`.toLowerCase();
    if (q && !q.split(/\s+/).every((word) => hay.includes(word))) continue;
    const group = groups.find((g) => g.group === c.group);
    if (group) group.commands.push(c);
    else groups.push({ group: c.group, commands: [c] });
  }
  return groups;
}
