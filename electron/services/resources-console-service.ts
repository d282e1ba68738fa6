/**
 * The Resources part of the ConsoleService (`shared/console-api-resources.ts`): a broker's
 * resources and alarms through the signed Switchboard command `resources` (docs/management.md
 * "Resources and alarms"). A read: not audited.
 *
 * A broker without `resources` (a plain tyo-mq broker, an older Switchboard) answers `400
 * unknown management command`: `getResources` reports `state: 'unsupported'` then and asks that
 * client no more (the view and the alarm chip poll; each refusal is a warning in its log).
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import {
  BrokerResourcesSchema,
  type ResourcesMethods,
  type ResourcesView,
} from '../../shared/console-api-resources';
import type { ManagerClient } from './manager-client';
import type { ManagerPool } from './manager-pool';
import { isUnknownCommand } from './unknown-command';
import type { z } from 'zod';

type Methods = typeof ResourcesMethods;
type Input<M extends keyof Methods> = z.infer<Methods[M]['input']>;
type Output<M extends keyof Methods> = z.infer<Methods[M]['output']>;

/** The Resources methods, as `createConsoleService` spreads them. */
export type ResourcesService = { [M in keyof Methods]: (input: Input<M>) => Promise<Output<M>> };

/** Clients whose broker refused `resources` as unknown. */
const withoutResources = new WeakSet<ManagerClient>();

export function createResourcesService(deps: { pool: Pick<ManagerPool, 'get'> }): ResourcesService {
  return {
    getResources: async ({ connectionId }): Promise<ResourcesView> => {
      const client = deps.pool.get(connectionId);
      const view = (resources: ResourcesView['resources']): ResourcesView => ({
        connectionId,
        state: resources ? 'ok' : 'unsupported',
        resources,
        fetchedAt: Date.now(),
      });
      if (withoutResources.has(client)) return view(null);
      let reply;
      try {
        reply = await client.command({ command: 'resources' });
      } catch (error) {
        if (!isUnknownCommand(error)) throw error;
        withoutResources.add(client);
        return view(null);
      }
      const parsed = BrokerResourcesSchema.safeParse(reply.resources);
      if (!parsed.success) {
        throw new SwitchboardError(
          'SWB_ERR_INTERNAL',
          'The broker answered resources with a reply of an unexpected shape',
        );
      }
      return view(parsed.data);
    },
  };
}
