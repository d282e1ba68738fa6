/**
 * The `mqtt` settings block (issue 14): an MQTT 3.1.1 / 5 listener sharing realms, auth and
 * routing with the tyo-mq protocol. See docs/mqtt.md.
 *
 * `{enabled (false), port (1883; 0 = any free port), host (the broker's listen host),
 *   ws_port (none: no MQTT-over-WebSocket listener), ws_path ("/mqtt"),
 *   tls: {key, cert} (PEM file paths; when set, the TCP listener speaks MQTT over TLS),
 *   max_packet_size (1,048,576 bytes of remaining length; larger packets close the connection),
 *   max_inflight_inbound (1,000 QoS 2 messages awaiting PUBREL per connection),
 *   MQTT 5 only: session_expiry_max (604,800 s), pending_sessions_max (10,000),
 *   topic_alias_max (16)}`.
 */
import { z } from 'zod';
import { DEFAULT_MAX_INFLIGHT_INBOUND } from './bounded-persistence';
import { DEFAULT_MAX_PACKET_SIZE } from './packet-guard';

const Port = z.number().int().min(0).max(65_535);

export const MqttTlsSchema = z
  .object({
    /** PEM private key file. */
    key: z.string().min(1),
    /** PEM certificate (chain) file. */
    cert: z.string().min(1),
  })
  .strict();

export const MqttSettingsSchema = z
  .object({
    enabled: z.boolean().default(false),
    port: Port.default(1883),
    /** Bind address; default the address the broker itself listens on. */
    host: z.string().min(1).max(253).optional(),
    /** MQTT over WebSocket on its own port; absent = off. */
    ws_port: Port.optional(),
    ws_path: z
      .string()
      .regex(/^\/[^\s]*$/, { message: 'must be a path starting with /' })
      .max(256)
      .default('/mqtt'),
    tls: MqttTlsSchema.optional(),
    /**
     * Largest packet accepted (bytes of remaining length, MQTT's maximum 268,435,455); a packet
     * declaring more closes its connection before its body is read.
     */
    max_packet_size: z.number().int().min(64).max(268_435_455).default(DEFAULT_MAX_PACKET_SIZE),
    /**
     * QoS 2 messages one connection may hold awaiting PUBREL (more closes it); advertised to
     * MQTT 5 clients as the CONNACK's Receive Maximum. 0 = no cap (unsafe).
     */
    max_inflight_inbound: z.number().int().min(0).max(65_535).default(DEFAULT_MAX_INFLIGHT_INBOUND),
    /**
     * MQTT 5: the longest Session Expiry Interval a client may ask for (seconds; larger requests,
     * "never" included, are clamped). 0 = no cap. Default 7 days.
     */
    session_expiry_max: z.number().int().min(0).max(0xffff_ffff).default(604_800),
    /**
     * MQTT 5: sessions (and delayed wills) waiting to expire at once; beyond it a leaving
     * session expires at once. 0 = no cap.
     */
    pending_sessions_max: z.number().int().min(0).default(10_000),
    /** MQTT 5: the highest inbound Topic Alias a client may use (0 = none). */
    topic_alias_max: z.number().int().min(0).max(65_535).default(16),
  })
  .strict();

export type MqttSettings = z.infer<typeof MqttSettingsSchema>;
