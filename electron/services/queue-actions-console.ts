/**
 * The Queues view's actions on copies (issue 27), for `queues-console-service.ts`: `moveQueue`
 * (signed `move_queue`) and `releaseInFlight` (signed `release_in_flight`), docs/management.md
 * "Queues". Both go through the audited pool, so Activity records them. A broker that does not
 * know the command (a plain tyo-mq broker, an older Switchboard: `unknown management command`,
 * or a broker built without queue services: 501 `… is not available`) gets `available: false`
 * and "This broker does not offer …" instead of an error.
 */
import type { QueuesMethods } from '../../shared/console-api-queues';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { ManagerPool } from './manager-pool';
import { isUnknownCommand } from './unknown-command';
import type { z } from 'zod';

type Methods = typeof QueuesMethods;
type MoveInput = z.infer<Methods['moveQueue']['input']>;
type MoveOutput = z.infer<Methods['moveQueue']['output']>;
type ReleaseInput = z.infer<Methods['releaseInFlight']['input']>;
type ReleaseOutput = z.infer<Methods['releaseInFlight']['output']>;

const int = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
const count = (v: unknown): number => (Array.isArray(v) ? v.length : 0);
const plural = (n: number) => (n === 1 ? 'message' : 'messages');
const offersNot = (command: string) => `This broker does not offer ${command}.`;

function notOffered(error: unknown, command: string): boolean {
  return (
    isUnknownCommand(error) ||
    (error instanceof SwitchboardError && error.message.includes(`${command} is not available`))
  );
}

/** The broker's reply to `body`, or null when it does not offer the command. */
async function run(
  pool: Pick<ManagerPool, 'get'>,
  connectionId: string,
  body: Record<string, unknown> & { command: string },
): Promise<Record<string, unknown> | null> {
  try {
    return await pool.get(connectionId).command(body);
  } catch (error) {
    if (notOffered(error, body.command)) return null;
    throw error;
  }
}

const source = (input: { realm: string; consumer: string; key?: string; ids?: string[] }) => ({
  realm: input.realm,
  consumer: input.consumer,
  ...(input.key ? { key: input.key } : {}),
  ...(input.ids ? { ids: input.ids } : {}),
});

/** `moveQueue`: see `QueuesMethods.moveQueue`. */
export async function moveQueue(
  pool: Pick<ManagerPool, 'get'>,
  input: MoveInput,
): Promise<MoveOutput> {
  const reply = await run(pool, input.connectionId, {
    command: 'move_queue',
    ...source(input),
    to: { ...input.to },
  });
  if (!reply) {
    const none = { moved: 0, inFlightKept: 0, notFound: 0 };
    return {
      connectionId: input.connectionId,
      available: false,
      ...none,
      summary: offersNot('move_queue'),
    };
  }
  const moved = int(reply.moved);
  const kept = int(reply.in_flight_kept);
  const notFound = count(reply.not_found);
  const to = (reply.to ?? {}) as Record<string, unknown>;
  const target = `${String(to.consumer ?? input.to.consumer ?? input.consumer)} (${String(to.key ?? input.to.event ?? input.key ?? '')})`;
  return {
    connectionId: input.connectionId,
    available: true,
    moved,
    inFlightKept: kept,
    notFound,
    summary:
      `Moved ${moved} ready ${plural(moved)} of ${input.consumer} to ${target}` +
      (kept > 0 ? `; ${kept} in flight kept` : '') +
      (notFound > 0 ? `; ${notFound} no longer queued` : '') +
      '.',
  };
}

/** `releaseInFlight`: see `QueuesMethods.releaseInFlight`. */
export async function releaseInFlight(
  pool: Pick<ManagerPool, 'get'>,
  input: ReleaseInput,
): Promise<ReleaseOutput> {
  const reply = await run(pool, input.connectionId, {
    command: 'release_in_flight',
    ...source(input),
  });
  if (!reply) {
    const none = { redelivered: 0, requeued: 0, deadLettered: 0, notInFlight: 0 };
    return {
      connectionId: input.connectionId,
      available: false,
      ...none,
      summary: offersNot('release_in_flight'),
    };
  }
  const redelivered = int(reply.redelivered);
  const requeued = int(reply.requeued);
  const deadLettered = int(reply.dead_lettered);
  const notInFlight = count(reply.not_in_flight);
  const parts = [
    redelivered > 0 && `${redelivered} redelivered to another group member`,
    requeued > 0 && `${requeued} kept for a retry (no other group member online)`,
    deadLettered > 0 && `${deadLettered} dead-lettered (attempts spent)`,
    notInFlight > 0 && `${notInFlight} no longer in flight`,
  ].filter(Boolean);
  const released = redelivered + requeued + deadLettered;
  return {
    connectionId: input.connectionId,
    available: true,
    redelivered,
    requeued,
    deadLettered,
    notInFlight,
    summary: `Released ${released} in-flight ${plural(released)} of ${input.consumer}${parts.length ? `: ${parts.join(', ')}` : ''}.`,
  };
}
