/**
 * The live tap and test publisher methods of the ConsoleService (`shared/console-api-tap.ts`).
 *
 * Each tap is a real tyo-mq consumer socket (realm-access.ts, tap-session.ts); its batches go to
 * the `tapBatch` stream tagged with an unguessable `tapId`, and the page shows only its own taps.
 * Taps stop on `tapStop`, when their socket drops, when the service closes, and when no client
 * has listened to `tapBatch` for `orphanMs` (every page that could show them is gone). A
 * stopped tap's consumer is removed from the broker, and taps a killed console left behind are
 * removed when a connection is first tapped and when the local broker comes up
 * (tap-leftovers.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ConsoleService } from '../../shared/console-api';
import type { ClientList, ConsoleFootprint } from '../../shared/console-api-operations';
import { TAP_DEFAULT_MAX_RATE } from '../../shared/console-api-tap';
import { SwitchboardError } from '../../shared/error-catalogue';
import { ClientEvent } from '../../shared/protocol-events';
import type { ConnectionManager } from './connection-manager';
import type { ConsoleEventHub } from './console-event-hub';
import type { ManagerPool } from './manager-pool';
import {
  CONSOLE_CLIENT_NAMES,
  openRealmSocket,
  revokeStaleConsoleTokens,
  type RealmSocket,
} from './realm-access';
import { publishMqtt } from './mqtt-publisher';
import { publishReach } from './publish-reach';
import { removeTapConsumer, removeTapLeftovers } from './tap-leftovers';
import { TapSession } from './tap-session';

/** Longest wait of `shutdown()` for the taps to leave their brokers, ms. */
export const SHUTDOWN_WAIT_MS = 5_000;

/** Most taps running at once in one console (each holds a socket). */
export const MAX_TAPS = 16;

/** Producer names remembered per connection as the test publisher's (newest kept). */
const MAX_PUBLISHER_NAMES = 64;

export interface TapServiceDeps {
  connections: ConnectionManager;
  pool: ManagerPool;
  hub: ConsoleEventHub;
  /** Stop taps nobody listens to after this long, in ms. Default 10,000. */
  orphanMs?: number;
  /** The broker's registrations (`GET /api/clients`), to find leftover taps. */
  listClients?: (connectionId: string) => Promise<ClientList>;
}

type TapMethodNames = 'tapStart' | 'tapStop' | 'publishMessage' | 'publishMqtt';

export function createTapConsoleService({
  connections,
  pool,
  hub,
  orphanMs = 10_000,
  listClients,
}: TapServiceDeps): {
  methods: Pick<ConsoleService, TapMethodNames>;
  /**
   * Removes the tap consumers a previous console left on `connectionId` (never this one's
   * running taps); resolves with how many. Never rejects.
   */
  removeLeftovers(connectionId: string): Promise<number>;
  /**
   * Stops every tap and waits (at most `SHUTDOWN_WAIT_MS`) until each has left its broker, so a
   * console that exits cleanly leaves no tap on a broker that outlives it. Never rejects.
   */
  shutdown(): Promise<void>;
  /**
   * The tap consumers running on `connectionId` and the producer names the test publisher
   * used there (this console run only), for the Clients view's labels.
   */
  footprint(connectionId: string): Omit<ConsoleFootprint, 'management'>;
  /** Stops every tap (their sockets close at once; token revocations finish on their own). */
  close(): void;
  /**
   * Opens a socket in a realm as a tap does (realm-access.ts, with the stale-token sweep), for
   * the topic tree. Errors as `tapStart`.
   */
  openRealm(connectionId: string, realm: string, clientName: string): Promise<RealmSocket>;
  /**
   * Keeps a tap-named consumer of another service (the topic tree) from the leftover sweep, and
   * lists it in `footprint`, until released.
   */
  holdConsumer(connectionId: string, realm: string, consumer: string): () => void;
} {
  const held = new Map<string, { connectionId: string; realm: string; consumer: string }>();
  const taps = new Map<string, TapSession>();
  const tapPlaces = new Map<string, { connectionId: string; realm: string; consumer: string }>();
  /** Per connection: `realm\0name` → the names the publisher produced as, oldest first. */
  const publishers = new Map<string, Map<string, { realm: string; name: string }>>();
  const rememberPublisher = (connectionId: string, realm: string, name: string): void => {
    let names = publishers.get(connectionId);
    if (!names) {
      names = new Map();
      publishers.set(connectionId, names);
    }
    const key = `${realm}\u0000${name}`;
    names.delete(key);
    names.set(key, { realm, name });
    if (names.size > MAX_PUBLISHER_NAMES) names.delete(names.keys().next().value as string);
  };
  const reachDeps = (connectionId: string) => ({
    manager: pool.get(connectionId, 'console'),
    ...(listClients ? { listClients: () => listClients(connectionId) } : {}),
  });
  let orphanSince: number | null = null;
  // Checked every second, or as often as a shorter delay (tests) is long.
  const sweep = setInterval(
    () => {
      if (taps.size === 0 || hub.listenerCount('tapBatch') > 0) {
        orphanSince = null;
        return;
      }
      orphanSince ??= Date.now();
      if (Date.now() - orphanSince >= orphanMs) {
        for (const tap of [...taps.values()]) void tap.stop();
      }
    },
    Math.min(1_000, orphanMs),
  );
  sweep.unref();

  /** Hashes of the temporary tokens in use, and the connections already swept of stale ones. */
  const activeTokens = new Set<string>();
  const swept = new Set<string>();

  const removeLeftovers = async (connectionId: string): Promise<number> => {
    if (!listClients) return 0;
    try {
      const active = new Set(
        [...taps.values()].map((tap) => tap.consumer).concat([...held.keys()]),
      );
      return await removeTapLeftovers(
        pool.get(connectionId, 'console'),
        () => listClients(connectionId),
        active,
      );
    } catch {
      return 0;
    }
  };

  const open = async (connectionId: string, realm: string, clientName: string) => {
    const profile = connections.profile(connectionId);
    const manager = pool.get(connectionId, 'console');
    const secret = profile.secret?.() ?? null;
    if (!swept.has(connectionId)) {
      swept.add(connectionId);
      await revokeStaleConsoleTokens(manager, activeTokens);
      // In the background: the new tap does not wait for the clean-up of old ones.
      void removeLeftovers(connectionId);
    }
    const client = await openRealmSocket({
      url: manager.url,
      realm,
      manager,
      // The local connection's secret is the global admin token.
      adminToken: profile.local ? secret : null,
      clientName,
      onTemporaryToken: (hash) => activeTokens.add(hash),
    });
    const close = client.close;
    return {
      ...client,
      close: async () => {
        await close();
        if (client.tokenHash) activeTokens.delete(client.tokenHash);
      },
    } satisfies RealmSocket;
  };

  return {
    removeLeftovers,
    openRealm: open,
    holdConsumer: (connectionId, realm, consumer) => {
      held.set(consumer, { connectionId, realm, consumer });
      return () => held.delete(consumer);
    },
    footprint: (connectionId) => ({
      taps: [...tapPlaces.values(), ...held.values()]
        .filter((place) => place.connectionId === connectionId)
        .map(({ realm, consumer }) => ({ realm, consumer })),
      publishers: [...(publishers.get(connectionId)?.values() ?? [])],
    }),
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      const stopped = Promise.all(
        [...taps.values()].map((tap) => tap.stop().catch(() => undefined)),
      );
      await Promise.race([
        stopped,
        new Promise((resolve) => {
          timer = setTimeout(resolve, SHUTDOWN_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    },
    methods: {
      tapStart: async ({ connectionId, realm, target, maxRatePerSec }) => {
        if (taps.size >= MAX_TAPS) {
          throw new SwitchboardError(
            'SWB_ERR_RATE_LIMITED',
            `At most ${MAX_TAPS} taps can run at once: stop one first`,
          );
        }
        const client = await open(connectionId, realm, CONSOLE_CLIENT_NAMES[0]!);
        const tapId = randomBytes(16).toString('hex');
        const rate = maxRatePerSec ?? TAP_DEFAULT_MAX_RATE;
        const session = new TapSession({
          tapId,
          connectionId,
          client,
          target,
          maxRatePerSec: rate,
          emit: (batch) => hub.emit('tapBatch', batch),
          onEnd: () => {
            taps.delete(tapId);
            tapPlaces.delete(tapId);
          },
          forget: (consumer) =>
            removeTapConsumer(pool.get(connectionId, 'console'), realm, consumer).catch(
              () => false,
            ),
        });
        taps.set(tapId, session);
        tapPlaces.set(tapId, { connectionId, realm, consumer: session.consumer });
        return {
          tapId,
          connectionId,
          realm,
          subscriptionKey: session.key,
          maxRatePerSec: rate,
          access: client.access,
        };
      },
      tapStop: async ({ tapId }) => {
        const tap = taps.get(tapId);
        if (!tap) return { stopped: false };
        await tap.stop();
        return { stopped: true };
      },
      publishMessage: async ({
        connectionId,
        realm,
        event,
        from,
        messageJson,
        guaranteed,
        ttlSeconds,
      }) => {
        let message: unknown;
        try {
          message = JSON.parse(messageJson);
        } catch (error) {
          throw new SwitchboardError(
            'SWB_ERR_VALIDATION',
            `The message is not valid JSON: ${(error as Error).message}`,
          );
        }
        const client: RealmSocket = await open(
          connectionId,
          realm,
          'Switchboard console publisher',
        );
        try {
          const payload: Record<string, unknown> = {
            event,
            message,
            from: from ?? 'switchboard-console',
          };
          rememberPublisher(connectionId, realm, String(payload.from));
          if (guaranteed) payload.guaranteed = true;
          if (ttlSeconds !== undefined) payload.ttl = ttlSeconds;
          const reply = (await client.socket
            .timeout(5_000)
            .emitWithAck(ClientEvent.PRODUCE, payload)
            .catch(() => null)) as { ok?: boolean; msgIds?: string[]; message?: string } | null;
          if (!reply) {
            throw new SwitchboardError(
              'SWB_ERR_BROKER_UNREACHABLE',
              'The broker did not confirm the message within 5 s',
            );
          }
          if (!reply.ok) {
            throw new SwitchboardError(
              'SWB_ERR_STORAGE',
              `The broker could not store the message: ${reply.message ?? 'no reason given'}`,
            );
          }
          const reach = await publishReach(
            reachDeps(connectionId),
            realm,
            event,
            payload.from as string,
          );
          return {
            realm,
            event,
            storedCopies: reply.msgIds?.length ?? 0,
            at: Date.now(),
            ...reach,
          };
        } finally {
          await client.close();
        }
      },
      publishMqtt: async (input) => {
        const profile = connections.profile(input.connectionId);
        const secret = profile.secret?.() ?? null;
        const admin = profile.local !== undefined || profile.stored?.credential.kind === 'admin';
        const sent = await publishMqtt(
          {
            profile,
            manager: pool.get(input.connectionId, 'console'),
            adminToken: admin ? secret : null,
            openTemporary: (realm) =>
              open(input.connectionId, realm, 'Switchboard console publisher'),
          },
          input,
        );
        return {
          ...sent,
          ...(await publishReach(reachDeps(input.connectionId), sent.realm, sent.topic)),
        };
      },
    },
    close: () => {
      clearInterval(sweep);
      for (const tap of [...taps.values()]) void tap.stop();
    },
  };
}
