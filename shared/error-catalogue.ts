/**
 * Switchboard's error catalogue: every error the console API, the web host and the broker's
 * own extensions report has a stable code, an HTTP-ish status and a default message.
 *
 * Style source: fastify's error codes (ARCHITECTURE §3). Protocol-level `ERROR` codes
 * (-1, -3, -4, -6) live in `protocol-events.ts` because clients match on them.
 */
export const ErrorCatalogue = {
  SWB_ERR_VALIDATION: { status: 400, message: 'Invalid input' },
  SWB_ERR_UNAUTHORIZED: { status: 401, message: 'Missing or wrong console secret' },
  SWB_ERR_FORBIDDEN_ORIGIN: { status: 403, message: 'Origin not allowed' },
  SWB_ERR_UNKNOWN_METHOD: { status: 404, message: 'Unknown console method' },
  SWB_ERR_NOT_FOUND: { status: 404, message: 'Not found' },
  SWB_ERR_PORT_IN_USE: { status: 409, message: 'Port already in use' },
  SWB_ERR_CONFLICT: { status: 409, message: 'Conflicts with the current state' },
  /** A dangerous ConsoleApi call without a valid confirmation (`shared/console-api-confirm.ts`). */
  SWB_ERR_CONFIRMATION_REQUIRED: {
    status: 428,
    message: 'This action needs a fresh confirmation from the console',
  },
  SWB_ERR_PAYLOAD_TOO_LARGE: { status: 413, message: 'Payload too large' },
  SWB_ERR_RATE_LIMITED: { status: 429, message: 'Rate limit or quota exceeded' },
  /**
   * A socket.io event on `/` that this broker has no handler for (e.g. tyo-mq 1.1's
   * `KEY_PUBLISH`); 501 is the protocol's "feature not configured" code
   * (`spec/protocol-extensions.md` §1.2). See `broker/handlers/unknown-event.ts`.
   */
  SWB_ERR_UNKNOWN_EVENT: { status: 501, message: 'Event not handled by this broker' },
  /** A feature the broker's configuration cannot offer (e.g. a backup of a Redis store). */
  SWB_ERR_NOT_SUPPORTED: { status: 501, message: "Not supported by this broker's configuration" },
  SWB_ERR_INTERNAL: { status: 500, message: 'Internal error' },
  SWB_ERR_STORAGE: { status: 500, message: 'Message store error' },
  SWB_ERR_QUEUE_FULL: { status: 507, message: 'Durable queue cap reached' },
  /** A cleartext in-process publish into a realm whose E2EE policy is `required` (§2.6). */
  SWB_ERR_E2EE_REQUIRED: { status: 403, message: 'Realm requires end-to-end encrypted messages' },
  SWB_ERR_BROKER_UNREACHABLE: { status: 502, message: 'Broker unreachable' },
  SWB_ERR_BROKER_NOT_RUNNING: { status: 503, message: 'Local broker is not running' },
} as const;

export type ErrorCode = keyof typeof ErrorCatalogue;

/** Serializable error carried in `{ok: false, error}` results. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}

/** Builds an `ErrorInfo`, with the catalogue's default message unless one is given. */
export function errorInfo(code: ErrorCode, message?: string): ErrorInfo {
  return { code, message: message ?? ErrorCatalogue[code].message };
}

/** An Error carrying a catalogue code, for code paths that throw. */
export class SwitchboardError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message?: string) {
    super(message ?? ErrorCatalogue[code].message);
    this.name = 'SwitchboardError';
    this.code = code;
  }
  get status(): number {
    return ErrorCatalogue[this.code].status;
  }
  toInfo(): ErrorInfo {
    return { code: this.code, message: this.message };
  }
}
