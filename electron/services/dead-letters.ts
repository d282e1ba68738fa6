/**
 * Maps the broker's DLQ entries (`spec/protocol-admin.md` §8.2 entry shape, with Switchboard's
 * `replay_count` / `first_dead_lettered_at` envelope fields, docs/management.md) onto the
 * ConsoleApi's `DeadLetter`.
 */
import {
  MAX_DEAD_LETTER_PAYLOAD_CHARS,
  type DeadLetter,
} from '../../shared/console-api-operations';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const time = (value: unknown): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
};

/** One raw DLQ entry → `DeadLetter`; the payload is the envelope's `message` as JSON text. */
export function toDeadLetter(raw: Record<string, unknown>): DeadLetter {
  const envelope =
    raw.message && typeof raw.message === 'object'
      ? (raw.message as Record<string, unknown>)
      : null;
  let payload: string | null = null;
  if (envelope && 'message' in envelope) {
    try {
      payload = JSON.stringify(envelope.message) ?? 'null';
    } catch {
      payload = null;
    }
  }
  const truncated = payload !== null && payload.length > MAX_DEAD_LETTER_PAYLOAD_CHARS;
  const replays = envelope?.replay_count;
  return {
    id: str(raw.id),
    realm: str(raw.realm),
    consumer: str(raw.consumer),
    reason: str(raw.reason),
    origin: {
      producer: str(envelope?.from) || str(raw.producer),
      event: str(envelope?.event),
      key: str(raw.event),
    },
    replayCount:
      typeof replays === 'number' && Number.isInteger(replays) && replays > 0 ? replays : 0,
    firstDeadLetteredAt: time(envelope?.first_dead_lettered_at),
    deadLetteredAt: time(raw.dead_lettered_at),
    createdAt: time(raw.created_at),
    expiresAt: time(raw.expires_at),
    payload: truncated ? payload!.slice(0, MAX_DEAD_LETTER_PAYLOAD_CHARS) : payload,
    payloadTruncated: truncated,
  };
}
