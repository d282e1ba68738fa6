/**
 * Reads and validates broker settings from an object or a JSON settings file.
 *
 * Source: `spec/protocol-admin.md` §12 (settings file) and §13 (`TYO_MQ_MAX_HTTP_BUFFER_SIZE`).
 */
import { readFile } from 'node:fs/promises';
import { SwitchboardError } from '../../shared/error-catalogue';
import { normalizeSettingsAliases } from './normalize-aliases';
import { SettingsSchema, type Settings } from './settings-schema';

/**
 * Validates a settings object (aliases folded, unknown keys rejected) and freezes it.
 * @throws SwitchboardError `SWB_ERR_VALIDATION` naming every invalid field.
 */
export function parseSettings(input: unknown = {}, env: NodeJS.ProcessEnv = {}): Settings {
  const result = SettingsSchema.safeParse(normalizeSettingsAliases(input ?? {}));
  if (!result.success) {
    const detail = result.error.issues
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw new SwitchboardError('SWB_ERR_VALIDATION', `Invalid settings: ${detail}`);
  }
  const settings = { ...result.data };
  const envBuffer = Number(env.TYO_MQ_MAX_HTTP_BUFFER_SIZE);
  if (Number.isInteger(envBuffer) && envBuffer > 0) settings.max_http_buffer_size = envBuffer;
  return Object.freeze(settings);
}

/**
 * Loads and validates a JSON settings file.
 * @throws SwitchboardError `SWB_ERR_VALIDATION` when the file is unreadable, not JSON, or invalid.
 */
export async function loadSettingsFile(
  path: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Settings> {
  return parseSettings(await readSettingsFile(path), env);
}

/**
 * Reads a JSON settings file as written (aliases folded, not yet validated), so that a
 * launcher can lay its own defaults under it before `parseSettings`.
 * @throws SwitchboardError `SWB_ERR_VALIDATION` when the file is unreadable, not a JSON object.
 */
export async function readSettingsFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Cannot read settings file ${path}: ${(err as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Settings file ${path} is not valid JSON: ${(err as Error).message}`,
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Settings file ${path} must hold a JSON object`,
    );
  }
  return normalizeSettingsAliases(json) as Record<string, unknown>;
}
