/**
 * The `mqtt` settings block (issue 14): an MQTT 3.1.1 / 5 listener sharing realms, auth and
 * routing with the tyo-mq protocol. See docs/mqtt.md.
 *
 * `{enabled (false), port (1883; 0 = any free port), host (the broker's listen host),
 *   ws_port (none: no MQTT-over-WebSocket listener), ws_path ("/mqtt"),
 *   tls: {key, cert} (PEM file paths; when set, the TCP listener speaks MQTT over TLS),
 *   max_packet_size (1,048,576 bytes of remaining length; larger packets close the connection)}`.
 */
import { z } from 'zod';
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
  })
  .strict();

export type MqttSettings = z.infer<typeof MqttSettingsSchema>;
