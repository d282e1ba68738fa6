/**
 * Saved publisher templates, per connection (issue 27 "saved templates per connection"): the
 * fields of a tyo-mq `PRODUCE` or an MQTT `PUBLISH` under a name, kept in the page's
 * localStorage. A template holds what the operator typed (topics, payloads) and never a
 * credential: the console host alone holds those.
 *
 * Stored as `switchboard.publishTemplates.<connectionId>` = JSON `PublishTemplate[]`, newest
 * first, at most `MAX_TEMPLATES`; anything that does not parse is dropped, never thrown.
 */
import { z } from 'zod';

/** Most templates kept per connection (the oldest beyond are dropped on save). */
export const MAX_TEMPLATES = 50;

const Text = z.string().max(1_048_576);

export const ProduceDraftSchema = z.object({
  realm: z.string().max(256),
  event: z.string().max(1_024),
  from: z.string().max(256),
  json: Text,
  guaranteed: z.boolean(),
  ttl: z.string().max(32),
});
export type ProduceDraft = z.infer<typeof ProduceDraftSchema>;

export const MqttDraftSchema = z.object({
  realm: z.string().max(256),
  topic: z.string().max(65_535),
  payload: Text,
  format: z.enum(['text', 'json', 'base64']),
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  retain: z.boolean(),
  protocolVersion: z.union([z.literal(4), z.literal(5)]),
  contentType: z.string().max(1_024),
  responseTopic: z.string().max(65_535),
  correlationData: z.string().max(4_096),
  expirySeconds: z.string().max(16),
  /** `key=value` per line. */
  userProperties: z.string().max(65_536),
  port: z.string().max(8),
});
export type MqttDraft = z.infer<typeof MqttDraftSchema>;

export const PublishTemplateSchema = z.discriminatedUnion('protocol', [
  z.object({
    name: z.string().min(1).max(100),
    protocol: z.literal('tyo-mq'),
    draft: ProduceDraftSchema,
  }),
  z.object({
    name: z.string().min(1).max(100),
    protocol: z.literal('mqtt'),
    draft: MqttDraftSchema,
  }),
]);
export type PublishTemplate = z.infer<typeof PublishTemplateSchema>;
export type PublishProtocol = PublishTemplate['protocol'];

export const DEFAULT_PRODUCE_DRAFT: ProduceDraft = {
  realm: '',
  event: 'test/hello',
  from: 'switchboard-console',
  json: '{\n  "hello": "world"\n}',
  guaranteed: false,
  ttl: '',
};

export const DEFAULT_MQTT_DRAFT: MqttDraft = {
  realm: '',
  topic: 'test/hello',
  payload: '{"hello": "world"}',
  format: 'json',
  qos: 1,
  retain: false,
  protocolVersion: 5,
  contentType: '',
  responseTopic: '',
  correlationData: '',
  expirySeconds: '',
  userProperties: '',
  port: '',
};

function storageKey(connectionId: string): string {
  return `switchboard.publishTemplates.${connectionId}`;
}

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** The connection's templates, newest first; [] when none or unreadable. */
export function loadTemplates(connectionId: string): PublishTemplate[] {
  const text = storage()?.getItem(storageKey(connectionId));
  if (!text) return [];
  try {
    const parsed = z.array(z.unknown()).parse(JSON.parse(text));
    return parsed.flatMap((entry) => {
      const one = PublishTemplateSchema.safeParse(entry);
      return one.success ? [one.data] : [];
    });
  } catch {
    return [];
  }
}

/**
 * Saves `template` first, replacing one of the same name; returns the new list. A full or
 * unavailable storage leaves the list in memory only (returned all the same).
 */
export function saveTemplate(connectionId: string, template: PublishTemplate): PublishTemplate[] {
  const list = [
    template,
    ...loadTemplates(connectionId).filter((t) => t.name !== template.name),
  ].slice(0, MAX_TEMPLATES);
  write(connectionId, list);
  return list;
}

/** Removes the template called `name`; returns the new list. */
export function deleteTemplate(connectionId: string, name: string): PublishTemplate[] {
  const list = loadTemplates(connectionId).filter((t) => t.name !== name);
  write(connectionId, list);
  return list;
}

function write(connectionId: string, list: PublishTemplate[]): void {
  try {
    storage()?.setItem(storageKey(connectionId), JSON.stringify(list));
  } catch {
    // Quota exceeded: the page keeps the list for this session.
  }
}

/** `key=value` lines as MQTT 5 user properties; blank lines skipped, `key` alone = empty value. */
export function parseUserProperties(text: string): { key: string; value: string }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const at = line.indexOf('=');
      return at < 0
        ? { key: line, value: '' }
        : { key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };
    })
    .filter((p) => p.key !== '');
}
