/**
 * MQTT payload bytes ↔ tyo-mq message values (issue 14; documented in docs/mqtt.md).
 *
 * MQTT → tyo-mq: UTF-8 text that parses as JSON becomes that JSON value; other valid UTF-8 text
 * becomes a string; bytes that are not valid UTF-8 become a base64 string with envelope
 * `enc: "base64"`. An empty payload becomes the empty string.
 * tyo-mq → MQTT: a string is sent as its UTF-8 bytes (no JSON quotes), or decoded from base64
 * when the message carries `enc: "base64"`; binary (Buffer / typed array) is sent as is;
 * any other value is sent as its JSON text.
 */

/** `enc` marking a base64-carried binary MQTT payload. */
export const BASE64_ENC = 'base64';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface MappedPayload {
  message: unknown;
  enc?: string;
}

/** MQTT payload → tyo-mq message. */
export function fromMqttPayload(payload: Buffer | string): MappedPayload {
  if (typeof payload === 'string') return { message: parseJsonOr(payload) };
  let text: string;
  try {
    text = utf8.decode(payload);
  } catch {
    return { message: payload.toString('base64'), enc: BASE64_ENC };
  }
  return { message: parseJsonOr(text) };
}

/** First characters a JSON text can start with (after white space). */
const JSON_START = /^\s*[[{"\-0-9tfn]/;

function parseJsonOr(text: string): unknown {
  // Most plain text cannot be JSON: skip the (throwing, costly) parse attempt for it.
  if (!JSON_START.test(text)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** tyo-mq message → MQTT payload bytes. */
export function toMqttPayload(message: unknown, enc?: unknown): Buffer {
  if (typeof message === 'string') {
    return enc === BASE64_ENC ? Buffer.from(message, 'base64') : Buffer.from(message, 'utf8');
  }
  if (Buffer.isBuffer(message)) return message;
  if (ArrayBuffer.isView(message)) {
    return Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  }
  if (message instanceof ArrayBuffer) return Buffer.from(message);
  return Buffer.from(JSON.stringify(message ?? null), 'utf8');
}
