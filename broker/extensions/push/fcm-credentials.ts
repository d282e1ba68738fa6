/**
 * FCM service-account loading (`spec/protocol-extensions.md` §6.1, §6.8.3): the default project
 * from `TYO_MQ_PUSH_FCM_CREDENTIALS`, per-`app_id` projects from `TYO_MQ_PUSH_FCM_PROJECTS` (a
 * JSON object app_id → path). Every error throws `PushConfigError` with the spec's text, which
 * names the variable and path, never the key.
 */
import { readFileSync } from 'node:fs';
import { PushConfigError } from './push-types';

/** The fields of a service-account JSON the transport uses. */
export interface ServiceAccount {
  client_email: string;
  private_key: string;
  project_id: string;
  /** Default `https://oauth2.googleapis.com/token`. */
  token_uri: string;
}

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** Loads and checks one service-account file; `label` is the variable named in errors. */
export function loadServiceAccount(path: string, label: string): ServiceAccount {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    throw new PushConfigError(`${label} unreadable or not JSON: ${path}`);
  }
  const sa = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  if (sa.type !== 'service_account') {
    throw new PushConfigError(`${label} must be a service_account JSON`);
  }
  const { client_email, private_key, project_id, token_uri } = sa;
  if (
    typeof client_email !== 'string' ||
    typeof private_key !== 'string' ||
    typeof project_id !== 'string' ||
    !client_email ||
    !private_key ||
    !project_id
  ) {
    throw new PushConfigError(`${label} must contain client_email, private_key and project_id`);
  }
  return {
    client_email,
    private_key,
    project_id,
    token_uri: typeof token_uri === 'string' && token_uri !== '' ? token_uri : GOOGLE_TOKEN_URL,
  };
}

export interface FcmProjects {
  defaultProject: ServiceAccount | null;
  /** app_id → project (a Map: `__proto__` falls through to the default, R111). */
  byAppId: ReadonlyMap<string, ServiceAccount>;
}

/** §6.1: both FCM variables; at least one is required. */
export function loadFcmProjects(env: Readonly<Record<string, string | undefined>>): FcmProjects {
  const credentials = env.TYO_MQ_PUSH_FCM_CREDENTIALS;
  const map = env.TYO_MQ_PUSH_FCM_PROJECTS;
  if (!credentials && !map) {
    throw new PushConfigError(
      "push transport 'fcm' requires TYO_MQ_PUSH_FCM_CREDENTIALS or TYO_MQ_PUSH_FCM_PROJECTS",
    );
  }
  const defaultProject = credentials
    ? loadServiceAccount(credentials, 'TYO_MQ_PUSH_FCM_CREDENTIALS')
    : null;
  const byAppId = new Map<string, ServiceAccount>();
  if (map) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(map) as unknown;
    } catch {
      parsed = null;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new PushConfigError(
        'TYO_MQ_PUSH_FCM_PROJECTS must be a JSON object mapping app_id -> service-account JSON path',
      );
    }
    for (const [appId, path] of Object.entries(parsed)) {
      if (typeof path !== 'string' || path === '') {
        throw new PushConfigError(
          `TYO_MQ_PUSH_FCM_PROJECTS entry for app_id "${appId}" must be a path string to a service-account JSON`,
        );
      }
      byAppId.set(appId, loadServiceAccount(path, `TYO_MQ_PUSH_FCM_PROJECTS[${appId}]`));
    }
  }
  return { defaultProject, byAppId };
}
