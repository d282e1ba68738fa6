/**
 * The sub-commands of `switchboard-admin`: each turns its arguments into signed management
 * commands (docs/management.md) and renders the reply.
 */
import { randomBytes } from 'node:crypto';
import { SignedAction } from '../../shared/admin-signature';
import { ensure, need, print, run, str, UsageError, type CliContext } from './cli-context';
import type { Reply } from './connection';
import { isoTimes, table, when } from './format';

export { RefusedError, UsageError, type CliContext } from './cli-context';
export { backup } from './backup-command';
export { dlq } from './dlq-command';

const hex32 = () => randomBytes(32).toString('hex');

function requestRows(request: Record<string, unknown> | null): string {
  if (!request) return 'no pending request';
  return table(
    ['field', 'value'],
    Object.entries(request).map(([k, v]) => [
      k,
      typeof v === 'object' && v !== null ? JSON.stringify(v) : v,
    ]),
  );
}

export async function request(c: CliContext): Promise<void> {
  const clientToken = hex32();
  const clientId = str(c, 'client-id') ?? `client-${randomBytes(6).toString('hex')}`;
  const reply = ensure(
    await c.conn.request({
      realm: need(str(c, 'realm'), '--realm'),
      role: str(c, 'role') ?? 'both',
      client_id: clientId,
      client_name: str(c, 'client-name') ?? clientId,
      client_token: clientToken,
    }),
  );
  // The client token is this client's future credential: shown once, here.
  const result = { ...reply, client_id: clientId, client_token: clientToken };
  print(
    c,
    result,
    () =>
      `request ${String(reply.request_id)} ${String(reply.status)}\nclient_id    ${clientId}\nclient_token ${clientToken}  (shown once)`,
  );
}

export async function next(c: CliContext): Promise<void> {
  const realm = str(c, 'realm');
  if (c.credential.kind === 'realm' && !realm)
    throw new UsageError('--realm is required with a realm manager key');
  const reply = ensure(
    await c.conn.signed(
      SignedAction.AUTHORIZATION_NEXT,
      c.credential.secret,
      realm ? { realm } : {},
    ),
  );
  print(c, reply, () => requestRows(reply.request as Record<string, unknown> | null));
}

export async function decide(
  c: CliContext,
  id: string | undefined,
  approved: boolean,
): Promise<void> {
  const body: Record<string, unknown> = { request_id: need(id, 'request id'), approved };
  // Without --role the broker grants the role the client asked for (§7.3: body role ||
  // requested role || both); defaulting to `both` here would widen a producer's request.
  if (approved) {
    const role = str(c, 'role');
    if (role !== undefined) body.role = role;
  } else body.reason = str(c, 'reason') ?? null;
  const reply = ensure(
    await c.conn.signed(SignedAction.AUTHORIZATION_DECIDE, c.credential.secret, body),
  );
  print(c, reply, () => requestRows(reply.request as Record<string, unknown>));
}

export async function revoke(c: CliContext): Promise<void> {
  const body: Record<string, unknown> = { command: 'revoke_token' };
  const hash = str(c, 'hash');
  if (hash) body.token_hash = hash;
  else {
    body.realm = need(str(c, 'realm'), '--hash, or --realm with --client-id,');
    body.client_id = need(str(c, 'client-id'), '--client-id');
  }
  const reply = await run(c, body);
  const revoked = (reply.revoked as Array<Record<string, unknown>>) ?? [];
  print(c, reply, () =>
    table(
      ['realm', 'role', 'client_id', 'client_name', 'token_hash'],
      revoked.map((r) => [r.realm, r.role, r.client_id, r.client_name, r.token_hash]),
    ),
  );
}

function realmTable(settings: Record<string, unknown>): string {
  const realms = (settings.realms ?? {}) as Record<string, Record<string, unknown>>;
  return table(
    ['realm', 'auth', 'consumers', 'manager key', 'psk', 'acceptance', 'lifetime', 'expires_at'],
    Object.keys(realms)
      .sort()
      .map((name) => {
        const r = realms[name]!;
        return [
          name,
          r.required === false ? 'open' : 'required',
          consumersColumn(r),
          r.manager_key_configured ? 'yes' : 'no',
          r.key_configured ? 'yes' : 'no',
          // Unset, acceptance follows the realm's auth (protocol-admin.md §4): say which it is.
          r.require_acceptance === undefined
            ? r.required === false
              ? 'waived (default)'
              : 'required (default)'
            : r.require_acceptance
              ? 'required'
              : 'waived',
          r.ephemeral || r.temporary ? 'ephemeral' : 'permanent',
          when(r.expires_at),
        ];
      }),
  );
}

/** Who may consume without a token (issue 20): the `consumers` column of `realm list`. */
function consumersColumn(r: Record<string, unknown>): string {
  if (r.required === false) return 'open';
  const keyRequired =
    typeof r.require_key === 'boolean' ? r.require_key : r.key_configured === true;
  if (keyRequired) return 'token or key';
  if (r.allow_tokenless_consumers === true) return 'token-less allowed';
  return r.key_configured ? 'token or key' : 'token';
}

/** `realm list|add|remove|key|manager-key|acceptance|tokenless|lifetime`. */
export async function realm(
  c: CliContext,
  action: string | undefined,
  name: string | undefined,
  arg?: string,
): Promise<void> {
  const show = (reply: Reply) =>
    print(c, reply, () => realmTable(reply.settings as Record<string, unknown>));
  switch (action) {
    case 'list':
      return show(await run(c, { command: 'get' }));
    case 'add': {
      const body: Record<string, unknown> = {
        command: 'add_realm',
        realm: need(name, 'realm name'),
        required: !c.opts.open,
      };
      if (c.opts.ephemeral) body.ephemeral = true;
      if (str(c, 'ttl')) body.ttl = str(c, 'ttl');
      if (c.opts['allow-tokenless-consumers']) body.allow_tokenless_consumers = true;
      return show(await run(c, body));
    }
    case 'remove': {
      if (!c.opts.yes)
        throw new UsageError('removing a realm disposes of everything in it: add --yes');
      const reply = await run(c, { command: 'remove_realm', realm: need(name, 'realm name') });
      return print(
        c,
        reply,
        () =>
          `removed ${name}: ${String(reply.removed_tokens)} token(s), ${String(reply.disconnected_sockets)} socket(s) disconnected`,
      );
    }
    case 'key':
    case 'manager-key': {
      const clear = Boolean(c.opts.clear);
      const secret = clear ? null : hex32();
      const body: Record<string, unknown> =
        action === 'key'
          ? { command: 'set_realm_key', realm: need(name, 'realm name'), key: secret }
          : {
              command: 'set_realm_manager_key',
              realm: need(name, 'realm name'),
              manager_key: secret,
            };
      if (action === 'key' && typeof c.opts['require-key'] === 'boolean')
        body.require_key = c.opts['require-key'];
      const reply = await run(c, body);
      const shown = secret ? { ...reply, generated: secret } : reply;
      return print(c, shown, () =>
        secret
          ? `${action} of ${name} set: ${secret}  (shown once)`
          : `${action} of ${name} cleared`,
      );
    }
    case 'acceptance': {
      if (arg !== 'on' && arg !== 'off') throw new UsageError('realm acceptance <name> on|off');
      return show(
        await run(c, {
          command: 'set_realm_acceptance',
          realm: need(name, 'realm name'),
          required: arg === 'on',
        }),
      );
    }
    case 'tokenless': {
      if (arg !== 'on' && arg !== 'off') throw new UsageError('realm tokenless <name> on|off');
      return show(
        await run(c, {
          command: 'set_realm_tokenless_consumers',
          realm: need(name, 'realm name'),
          allow_tokenless_consumers: arg === 'on',
        }),
      );
    }
    case 'lifetime': {
      const body: Record<string, unknown> = {
        command: 'set_realm_lifetime',
        realm: need(name, 'realm name'),
      };
      if (c.opts.permanent) body.ephemeral = false;
      else body.ttl = need(str(c, 'ttl'), '--ttl (or --permanent)');
      return show(await run(c, body));
    }
    default:
      throw new UsageError('realm list|add|remove|key|manager-key|acceptance|tokenless|lifetime');
  }
}

export async function stats(c: CliContext): Promise<void> {
  const reply = await run(c, { command: 'stats' });
  type Count = { total: number; online: number };
  type RealmRow = {
    producers: Count;
    consumers: Count;
    subscriptions: number;
    queued?: number;
    dlq?: number;
    durable_subscriptions?: Array<Record<string, unknown>>;
  };
  const s = reply.stats as { realms: Record<string, RealmRow>; connections_current: number };
  print(
    c,
    reply,
    () =>
      `${table(
        ['realm', 'producers', 'consumers', 'subscriptions', 'queued', 'dlq', 'durable (backlog)'],
        Object.entries(s.realms).map(([name, r]) => [
          name,
          `${r.producers.online}/${r.producers.total}`,
          `${r.consumers.online}/${r.consumers.total}`,
          r.subscriptions,
          r.queued ?? '-',
          r.dlq ?? '-',
          Array.isArray(r.durable_subscriptions)
            ? r.durable_subscriptions
                .map(
                  (d: Record<string, unknown>) =>
                    `${String(d.consumer)}:${String(d.key)}(${String(d.backlog)})`,
                )
                .join(' ') || '-'
            : '-',
        ]),
      )}\nconnections: ${s.connections_current}`,
  );
}

export async function settings(c: CliContext): Promise<void> {
  const reply = await run(c, { command: 'get' });
  c.out(JSON.stringify(isoTimes(c.json ? reply : reply.settings), null, 2));
}
