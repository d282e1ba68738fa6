/**
 * The Clients view's detail panel over signed management commands (issue 27): `client_detail`
 * and `close_client` (docs/management.md "Client detail and control"). A broker that does not
 * know them (a plain tyo-mq broker, an older Switchboard: `unknown management command`, or a
 * Switchboard built without the records: 501) gets `available: false` and a sentence saying so,
 * rather than an error, so the view can show it in place.
 */
import { ClientDetailSchema } from '../../shared/client-detail';
import type { ClientDetailResult, CloseClientResult } from '../../shared/console-api-operations';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { ManagerPool } from './manager-pool';

interface ClientTarget {
  connectionId: string;
  realm: string;
  clientId: string;
}

/** Whether `error` says the broker does not offer `command`. */
function notOffered(error: unknown, command: string): boolean {
  if (!(error instanceof SwitchboardError)) return false;
  return (
    /unknown management command/i.test(error.message) ||
    error.message.includes(`${command} is not available`)
  );
}

const offersNot = (command: string) => `This broker does not offer ${command}`;

export async function clientDetail(
  pool: Pick<ManagerPool, 'get'>,
  { connectionId, realm, clientId }: ClientTarget,
): Promise<ClientDetailResult> {
  let reply: Record<string, unknown>;
  try {
    reply = await pool
      .get(connectionId)
      .command({ command: 'client_detail', realm, client_id: clientId });
  } catch (error) {
    if (!notOffered(error, 'client_detail')) throw error;
    return { connectionId, available: false, detail: null, message: offersNot('client_detail') };
  }
  const parsed = ClientDetailSchema.safeParse(reply.client);
  if (!parsed.success) {
    throw new SwitchboardError('SWB_ERR_INTERNAL', 'Invalid client_detail reply');
  }
  return { connectionId, available: true, detail: parsed.data };
}

export async function closeClient(
  pool: Pick<ManagerPool, 'get'>,
  { connectionId, realm, clientId, blockSeconds }: ClientTarget & { blockSeconds?: number },
): Promise<CloseClientResult> {
  let reply: Record<string, unknown>;
  try {
    reply = (await pool.get(connectionId).command({
      command: 'close_client',
      realm,
      client_id: clientId,
      ...(blockSeconds ? { block_seconds: blockSeconds } : {}),
    })) as Record<string, unknown>;
  } catch (error) {
    if (!notOffered(error, 'close_client')) throw error;
    return { connectionId, available: false, message: offersNot('close_client') };
  }
  const until = typeof reply.blocked_until === 'string' ? Date.parse(reply.blocked_until) : NaN;
  const blocked = Number.isFinite(until)
    ? ` Its reconnects are refused until ${new Date(until).toLocaleTimeString()}.`
    : '';
  // A device between two attempts of a reconnect loop: the block is what was done.
  const what = reply.connected === false ? 'was not connected: nothing to close.' : 'closed.';
  return {
    connectionId,
    available: true,
    message: `Client ${clientId} of ${realm} ${what}${blocked}`,
  };
}
