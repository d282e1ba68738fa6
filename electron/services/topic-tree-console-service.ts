/**
 * The Topic tree methods of the ConsoleService (`shared/console-api-topics.ts`).
 *
 * Each tree is a real tyo-mq consumer socket opened as the tap opens its own (the tap service's
 * `openRealm`: the connection's credentials, a temporary token revoked on stop), aggregated here
 * (topic-tree-session.ts) and pushed on `topicTreeUpdate` tagged with an unguessable `treeId`.
 * Trees stop on `topicTreeStop`, when their socket drops, when the service closes, and when no
 * client has listened to `topicTreeUpdate` for `orphanMs`. The retained seed reads
 * `list_retained` through the retained service, so a broker without it is asked once.
 */
import { randomBytes } from 'node:crypto';
import type { ConsoleService } from '../../shared/console-api';
import { MAX_RETAINED_PAGE } from '../../shared/console-api-retained';
import { MAX_TOPIC_TREES } from '../../shared/console-api-topics';
import type { ClientList } from '../../shared/console-api-operations';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { ConsoleEventHub } from './console-event-hub';
import type { RealmSocket } from './realm-access';
import type { RetainedService } from './retained-console-service';
import { subscriberCounter } from './topic-subscribers';
import { TopicTreeSession } from './topic-tree-session';

export interface TopicTreeServiceDeps {
  hub: ConsoleEventHub;
  /** Opens a consumer socket in a realm (the tap service's `openRealm`). */
  openRealm(connectionId: string, realm: string, clientName: string): Promise<RealmSocket>;
  /** Spares a running tree's consumer from the tap leftover sweep (tap service). */
  holdConsumer(connectionId: string, realm: string, consumer: string): () => void;
  /** Removes a stopped tree's consumer from the broker; must not reject. */
  forget(connectionId: string, realm: string, consumer: string): Promise<unknown>;
  retained: Pick<RetainedService, 'listRetained'>;
  /** The broker's registrations (`GET /api/clients`), for subscriber counts; absent: "—". */
  listClients?: (connectionId: string) => Promise<ClientList>;
  /** Stop trees nobody listens to after this long, ms. Default 10,000. */
  orphanMs?: number;
  /** Update period of every tree, ms (tests). */
  periodMs?: number;
}

type TopicMethodNames = 'topicTreeStart' | 'topicTreeStop' | 'topicTreeNode';

/** Client name of a tree's temporary token, as operators see it in the request queue. */
export const TOPIC_TREE_CLIENT_NAME = 'Switchboard console topic tree';

export function createTopicTreeService(deps: TopicTreeServiceDeps): {
  methods: Pick<ConsoleService, TopicMethodNames>;
  /** Stops every tree and waits until each has left its broker. Never rejects. */
  shutdown(): Promise<void>;
  close(): void;
} {
  const { hub, orphanMs = 10_000, listClients } = deps;
  const trees = new Map<string, { connectionId: string; session: TopicTreeSession }>();
  let orphanSince: number | null = null;
  // Checked every second, or as often as a shorter delay (tests) is long.
  const sweep = setInterval(
    () => {
      if (trees.size === 0 || hub.listenerCount('topicTreeUpdate') > 0) {
        orphanSince = null;
        return;
      }
      orphanSince ??= Date.now();
      if (Date.now() - orphanSince >= orphanMs) {
        for (const { session } of [...trees.values()]) void session.stop();
      }
    },
    Math.min(1_000, orphanMs),
  );
  sweep.unref();

  const find = (connectionId: string, treeId: string): TopicTreeSession | null => {
    const tree = trees.get(treeId);
    return tree && tree.connectionId === connectionId ? tree.session : null;
  };
  const stopAll = () =>
    Promise.all([...trees.values()].map(({ session }) => session.stop().catch(() => undefined)));

  return {
    methods: {
      topicTreeStart: async ({ connectionId, realm }) => {
        if (trees.size >= MAX_TOPIC_TREES) {
          throw new SwitchboardError(
            'SWB_ERR_RATE_LIMITED',
            `At most ${MAX_TOPIC_TREES} topic trees can run at once: close one first`,
          );
        }
        const client = await deps.openRealm(connectionId, realm, TOPIC_TREE_CLIENT_NAME);
        const treeId = randomBytes(16).toString('hex');
        let release = (): void => undefined;
        const session = new TopicTreeSession({
          treeId,
          connectionId,
          client,
          ...(deps.periodMs ? { periodMs: deps.periodMs } : {}),
          emit: (update) => hub.emit('topicTreeUpdate', update),
          onEnd: () => {
            trees.delete(treeId);
            release();
          },
          retained: (cursor) =>
            deps.retained.listRetained({
              connectionId,
              realm,
              filter: '#',
              cursor,
              limit: MAX_RETAINED_PAGE,
            }),
          forget: (consumer) => deps.forget(connectionId, realm, consumer),
          ...(listClients
            ? {
                subscribers: async () => subscriberCounter(await listClients(connectionId), realm),
              }
            : {}),
        });
        release = deps.holdConsumer(connectionId, realm, session.consumer);
        trees.set(treeId, { connectionId, session });
        return { treeId, realm };
      },
      topicTreeStop: async ({ connectionId, treeId }) => {
        const session = find(connectionId, treeId);
        if (!session) return { stopped: false };
        await session.stop();
        return { stopped: true };
      },
      topicTreeNode: async ({ connectionId, treeId, topic }) => {
        const session = find(connectionId, treeId);
        if (!session)
          throw new SwitchboardError('SWB_ERR_NOT_FOUND', 'This topic tree is not running');
        const detail = session.detail(topic);
        if (!detail) {
          throw new SwitchboardError('SWB_ERR_NOT_FOUND', `The tree has not seen topic ${topic}`);
        }
        return detail;
      },
    },
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        stopAll(),
        new Promise((resolve) => {
          timer = setTimeout(resolve, 5_000);
        }),
      ]);
      clearTimeout(timer);
    },
    close: () => {
      clearInterval(sweep);
      void stopAll();
    },
  };
}
