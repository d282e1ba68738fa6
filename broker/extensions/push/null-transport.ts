/**
 * The `null` push transport (`spec/protocol-extensions.md` §6.8.1), for development and tests:
 * `send` records `{transport, token, app_id, payload}` in memory and answers `{ok:true}`; a
 * token marked gone (the test hook `markGone`) answers `{ok:false, gone:true}`. Nothing leaves
 * the process. A test may pass its own instance (`BrokerOptions.push.nullTransport`) to read
 * what was sent.
 */
import type { PushEndpoint, PushTransport, SendResult, WakePayload } from './push-types';

export interface NullWake {
  transport: 'null';
  token: string;
  app_id: string | null;
  payload: WakePayload;
}

/** Kept records at most (a long-running development broker does not grow without bound). */
const MAX_RECORDS = 1_000;

export class NullTransport implements PushTransport {
  readonly name = 'null';
  readonly sent: NullWake[] = [];
  private readonly gone = new Set<string>();
  /** Test hook (R99): makes the next sends throw synchronously. */
  throwOnSend = false;

  /** Test hook: `token`'s next sends answer gone (§6.8.1). */
  markGone(token: string): void {
    this.gone.add(token);
  }

  send(endpoint: PushEndpoint, payload: WakePayload): Promise<SendResult> {
    if (this.throwOnSend) throw new Error('null transport told to throw');
    if (this.gone.has(endpoint.token)) return Promise.resolve({ ok: false, gone: true });
    this.sent.push({ transport: 'null', token: endpoint.token, app_id: endpoint.app_id, payload });
    if (this.sent.length > MAX_RECORDS) this.sent.shift();
    return Promise.resolve({ ok: true });
  }
}
