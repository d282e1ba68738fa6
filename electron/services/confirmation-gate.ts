/**
 * The host side of confirmation tokens (`shared/console-api-confirm.ts`): mints one per
 * dangerous call — bound to its method and its validated arguments — and accepts it once, within
 * `CONFIRMATION_TTL_MS`. Kept in memory only (a restart voids every token, which is the point).
 *
 * Why bound to the arguments: a token minted to approve request A must not approve B, nor A with
 * another role. The binding is a SHA-256 of the method and the canonical JSON of the input as
 * its schema parsed it (keys sorted), so `{a, b}` and `{b, a}` bind alike.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ConsoleMethods } from '../../shared/console-api';
import {
  CONFIRMATION_TTL_MS,
  type Confirmation,
  type ConfirmedMethod,
} from '../../shared/console-api-confirm';
import { SwitchboardError } from '../../shared/error-catalogue';

/** Asks the operator, outside the page, whether to go ahead (the desktop app's native dialog);
 * resolves true to mint. Absent: mint on request (the web host: the page's dialog asked). */
export type ConfirmGesture = (request: {
  method: ConfirmedMethod;
  summary: string;
}) => Promise<boolean>;

export interface ConfirmationGateOptions {
  gesture?: ConfirmGesture;
  /** Token lifetime, ms. Default `CONFIRMATION_TTL_MS`. */
  ttlMs?: number;
  /** Clock, epoch ms (tests). */
  now?: () => number;
}

/** Most unused tokens kept; the oldest are dropped beyond it (a page minting in a loop). */
const MAX_PENDING = 64;

interface Pending {
  method: string;
  binding: string;
  expiresAt: number;
}

export class ConfirmationGate {
  private readonly pending = new Map<string, Pending>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ConfirmationGateOptions = {}) {
    this.ttlMs = options.ttlMs ?? CONFIRMATION_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /**
   * Mints the token of `method(input)`. Errors: `SWB_ERR_VALIDATION` (not a valid input of
   * `method`), `SWB_ERR_CONFIRMATION_REQUIRED` (the gesture said no).
   */
  async mint(method: ConfirmedMethod, input: Record<string, unknown>): Promise<Confirmation> {
    const binding = bind(method, input);
    if (this.options.gesture) {
      const yes = await this.options.gesture({ method, summary: summarize(method, input) });
      if (!yes) throw new SwitchboardError('SWB_ERR_CONFIRMATION_REQUIRED', 'Cancelled');
    }
    this.sweep();
    while (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value as string;
      this.pending.delete(oldest);
    }
    const confirmation = randomBytes(24).toString('base64url');
    const expiresAt = this.now() + this.ttlMs;
    this.pending.set(confirmation, { method, binding, expiresAt });
    return { confirmation, expiresAt };
  }

  /**
   * Uses up `confirmation` for `method(input)`. Throws `SWB_ERR_CONFIRMATION_REQUIRED` when it
   * is missing, unknown, used, expired or minted for another call (it is void afterwards either
   * way: a wrong guess burns the token).
   */
  consume(method: string, input: unknown, confirmation: unknown): void {
    if (typeof confirmation !== 'string' || confirmation === '') {
      throw new SwitchboardError(
        'SWB_ERR_CONFIRMATION_REQUIRED',
        `${method} needs a confirmation: confirm the action in the console`,
      );
    }
    const entry = this.pending.get(confirmation);
    this.pending.delete(confirmation);
    if (!entry || entry.expiresAt <= this.now()) {
      throw new SwitchboardError(
        'SWB_ERR_CONFIRMATION_REQUIRED',
        'The confirmation is unknown, used or expired: confirm the action again',
      );
    }
    let binding: string;
    try {
      binding = bind(method, input);
    } catch {
      binding = '';
    }
    if (entry.method !== method || entry.binding !== binding) {
      throw new SwitchboardError(
        'SWB_ERR_CONFIRMATION_REQUIRED',
        'The confirmation was given for another action: confirm this one',
      );
    }
  }

  private sweep(): void {
    const now = this.now();
    for (const [token, entry] of this.pending)
      if (entry.expiresAt <= now) this.pending.delete(token);
  }
}

/** The binding of a call: method + canonical JSON of its schema-parsed input. */
function bind(method: string, input: unknown): string {
  const schema = ConsoleMethods[method as ConfirmedMethod]?.input;
  if (!schema)
    throw new SwitchboardError('SWB_ERR_VALIDATION', `Not a confirmed method: ${method}`);
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Invalid input for ${method}: ${parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.map(String).join('.') || '(input)'}: ${issue.message}`)
        .join('; ')}`,
    );
  }
  return createHash('sha256')
    .update(`${method}\n${canonical(parsed.data)}`)
    .digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** One line for the desktop app's dialog: what the call does to what. */
export function summarize(method: ConfirmedMethod, input: Record<string, unknown>): string {
  const s = (key: string): string => String(input[key] ?? '');
  switch (method) {
    case 'decideRequest':
      return `Approve authorization request ${s('requestId')}${input.role ? ` as ${s('role')}` : ''}?`;
    case 'revokeToken':
      return `Revoke the token ${s('tokenHash').slice(0, 12)}… and disconnect its sessions?`;
    case 'revokeManagementToken':
      return `Revoke the management token ${s('tokenHash').slice(0, 12)}…?`;
    case 'removeRealm':
      return `Remove the realm "${s('realm')}" with its queues, dead letters and requests?`;
    case 'closeClient':
      return `Force close the client ${s('clientId')} of "${s('realm')}"${input.blockSeconds ? ` and refuse its reconnects for ${Number(input.blockSeconds)} s` : ''}?`;
    case 'discardDeadLetters': {
      const ids = Array.isArray(input.ids) ? input.ids.length : 0;
      return `Discard ${ids} dead letter${ids === 1 ? '' : 's'}${input.realm ? ` of "${s('realm')}"` : ''} for good?`;
    }
    case 'purgeQueue': {
      const where = `"${s('consumer')}"${input.key ? ` (${s('key')})` : ''} in "${s('realm')}"`;
      if (!Array.isArray(input.ids)) return `Purge the ready messages queued for ${where}?`;
      const n = input.ids.length;
      return `Discard ${n} selected message${n === 1 ? '' : 's'} queued for ${where} for good?`;
    }
    case 'moveQueue': {
      const ids = Array.isArray(input.ids) ? input.ids.length : 0;
      const to = (input.to ?? {}) as Record<string, unknown>;
      const where = [to.consumer && `"${String(to.consumer)}"`, to.event && `(${String(to.event)})`]
        .filter(Boolean)
        .join(' ');
      return `Move ${ids ? `${ids} selected` : 'every ready'} message${ids === 1 ? '' : 's'} of "${s('consumer')}" in "${s('realm')}" to ${where}?`;
    }
    case 'releaseInFlight': {
      const ids = Array.isArray(input.ids) ? input.ids.length : 0;
      return `Release ${ids ? ids : 'every'} in-flight message${ids === 1 ? '' : 's'} of "${s('consumer')}" in "${s('realm')}" now?`;
    }
    case 'deleteRetained':
      return input.filter
        ? `Delete every retained message matching "${s('filter')}" in "${s('realm')}"?`
        : `Delete the retained message of "${s('topic')}" in "${s('realm')}"?`;
    case 'commandRun': {
      const realm = (input.params as Record<string, unknown> | undefined)?.realm;
      const where = typeof realm === 'string' && realm ? ` for "${realm}"` : '';
      return `Send the destructive management command ${s('command')}${where}?`;
    }
    case 'applyDefinitions':
      return `Apply the imported definitions to this broker${input.applyRemovals ? ', removing what the file does not have' : ''}?`;
    case 'revokeIdentityKey':
      return `Revoke ${input.keyId ? `the key "${s('keyId')}"` : 'every key'} of "${s('identity')}" in "${s('realm')}"${input.unpin ? ' and unpin it' : ''}?`;
  }
}
