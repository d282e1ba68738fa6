/**
 * ConsoleApi contract of the console's MQTT publisher (issue 27 "A publisher for both
 * protocols"): one MQTT `PUBLISH` from the console host with QoS, retain and MQTT 5 properties,
 * to the broker's MQTT listener, under the same credentials the console uses elsewhere (never
 * sent to the page). Spread into `ConsoleMethods` in `console-api.ts`.
 *
 * Source: MQTT 3.1.1 §3.3 and MQTT 5.0 §3.3 (PUBLISH, its properties §3.3.2.3), `docs/mqtt.md`
 * (how the broker admits an MQTT client: username = realm, password = token or key).
 */
import { z } from 'zod';
import { PublishReachShape } from './console-api-tap';

const ConnectionId = z.string().min(1).max(128);
/** An MQTT topic name (§4.7): no wildcards, not empty, at most 65,535 bytes (UTF-8). */
const TopicName = z
  .string()
  .min(1)
  .max(65_535)
  .refine((topic) => !/[#+]/.test(topic) && !topic.includes('\u0000'), {
    message: 'an MQTT topic name has no wildcards (+, #) and no NUL character',
  });

/** Largest payload the publisher sends, in characters of its text (the broker's own cap may be lower). */
export const MAX_MQTT_PUBLISH_CHARS = 1_048_576;
/** The web host's body limit of `publishMqtt`, in bytes (up to 3 UTF-8 bytes a character). */
export const MQTT_PUBLISH_MAX_BODY_BYTES = 3 * MAX_MQTT_PUBLISH_CHARS + 64 * 1024;

/** How `payload` is turned into bytes: UTF-8 text, JSON (checked, then sent as its text), base64. */
export const MqttPayloadFormat = z.enum(['text', 'json', 'base64']);
export type MqttPayloadFormat = z.infer<typeof MqttPayloadFormat>;

/**
 * MQTT 5 PUBLISH properties (§3.3.2.3). Ignored (and refused, `SWB_ERR_VALIDATION`) with
 * protocol version 4 (3.1.1), which has none. `messageExpirySeconds`: §3.3.2.3.3, seconds;
 * `correlationData` is sent as its UTF-8 bytes.
 */
export const MqttPublishPropertiesSchema = z
  .object({
    contentType: z.string().min(1).max(1_024).optional(),
    responseTopic: TopicName.optional(),
    correlationData: z.string().min(1).max(4_096).optional(),
    messageExpirySeconds: z.number().int().min(1).max(4_294_967_295).optional(),
    /** §3.3.2.3.2: 1 = the payload is UTF-8 text. Set from the format unless given. */
    payloadFormatIndicator: z.boolean().optional(),
    userProperties: z
      .array(z.object({ key: z.string().min(1).max(1_024), value: z.string().max(4_096) }).strict())
      .max(32)
      .optional(),
  })
  .strict();
export type MqttPublishProperties = z.infer<typeof MqttPublishPropertiesSchema>;

/** What `publishMqtt` sends. `mqttPort`: the broker's MQTT TCP port (default: see the method). */
export const MqttPublishInputSchema = z
  .object({
    connectionId: ConnectionId,
    realm: z.string().min(1).max(256),
    topic: TopicName,
    payload: z.string().max(MAX_MQTT_PUBLISH_CHARS),
    format: MqttPayloadFormat.default('text'),
    qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(0),
    retain: z.boolean().default(false),
    /** 4 = MQTT 3.1.1, 5 = MQTT 5.0. Default 5. */
    protocolVersion: z.union([z.literal(4), z.literal(5)]).default(5),
    properties: MqttPublishPropertiesSchema.optional(),
    mqttPort: z.number().int().min(1).max(65_535).optional(),
    /** MQTT over TLS (`mqtts`). Default: on when the connection's URL is `https`/`wss`. */
    tls: z.boolean().optional(),
  })
  .strict();
export type MqttPublishInput = z.input<typeof MqttPublishInputSchema>;

/**
 * The outcome of one publish. `acknowledged`: the broker answered PUBACK (QoS 1) or PUBCOMP
 * (QoS 2) — QoS 0 has no answer, so it only says the packet was written. `endpoint` is
 * `mqtt[s]://host:port` (no credentials). `admittedAs` says how the client got into the realm.
 */
export const MqttPublishResultSchema = z.object({
  realm: z.string(),
  topic: z.string(),
  qos: z.number().int(),
  retain: z.boolean(),
  bytes: z.number().int().nonnegative(),
  acknowledged: z.boolean(),
  endpoint: z.string(),
  admittedAs: z.enum(['auth-off', 'admin', 'open', 'temporary']),
  at: z.number(),
  ...PublishReachShape,
});
export type MqttPublishResult = z.infer<typeof MqttPublishResultSchema>;

export const MqttPublishMethods = {
  /**
   * Publishes one MQTT message to the connection's broker, on the host of the connection's URL
   * and `mqttPort` (default: the local broker's bound MQTT port; 1883 for a remote broker).
   * Credentials: none with auth off; the connection's admin token (username = realm) when it has
   * one; none for an open realm; else a temporary token the console approves and revokes after
   * the publish (as the Live tap does). Errors: `SWB_ERR_VALIDATION` (JSON or base64 payload
   * that does not parse, MQTT 5 properties with protocol version 4, MQTT off on the local
   * broker), `SWB_ERR_BROKER_UNREACHABLE` (no CONNACK or acknowledgement within 5 s),
   * `SWB_ERR_UNAUTHORIZED` (CONNACK refused, or a PUBACK reason code ≥ 0x80 such as 0x87
   * "Not authorized"), `SWB_ERR_NOT_FOUND` (unknown connection).
   */
  publishMqtt: { input: MqttPublishInputSchema, output: MqttPublishResultSchema },
} as const;
