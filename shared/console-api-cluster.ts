/**
 * Cluster figures the console adds to an overview sample (docs/console.md, "Cluster"): the
 * relay counters of a clustered broker node, read from its `/api/metrics`
 * (`tyo_mq_cluster_relayed_total{outcome}`, `tyo_mq_cluster_received_total{outcome}`). The
 * node list and Redis link state come from `/api/stats` `cluster` (`ClusterStatusSchema` in
 * http-api.ts) as they are. No methods or events of its own: it extends `CountersSchema`.
 */
import { z } from 'zod';

/** Totals since the node started; absent from `Counters` when the broker is not clustered. */
export const ClusterRelaySchema = z.object({
  /** Messages published to the other nodes through Redis. */
  sent: z.number().nonnegative(),
  /** Messages that could not be published (Redis down or refusing). */
  failed: z.number().nonnegative(),
  /** Messages from other nodes routed to this node's consumers. */
  received: z.number().nonnegative(),
  /** Messages from other nodes dropped as malformed. */
  invalid: z.number().nonnegative(),
});
export type ClusterRelay = z.infer<typeof ClusterRelaySchema>;
