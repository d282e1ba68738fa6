/**
 * `brokerDrain(parts)`: the broker's stop (issue 23): readiness turns 503 first, then the steps
 * of transport/graceful-drain.ts. Its `release` step, `releaseBroker(parts)`, closes what is
 * left once the transports are closed, in order: the synchronous parts, the durable expiry,
 * the MQTT listener, the cluster's admin state, push, the cluster, the listeners, the settings
 * runtime, and the store last, so its pending writes commit. Part of the composition root.
 */
import type { PendingWork } from './handlers/pending-work';
import type { Logger } from './logging/logger';
import { closeTransports } from './transport/close-transports';
import { GracefulDrain } from './transport/graceful-drain';
import type { BrokerServer } from './transport/socket-types';

export interface BrokerReleaseParts {
  /** Timers and caches closed first (acks, ledger, chunks, tickets, resources, …). */
  closeFirst: ReadonlyArray<{ close(): void }>;
  expiry: { stop(): void };
  mqtt: { close(): Promise<void> };
  admin: { close(): void };
  push: { close(): void };
  cluster: { close(): Promise<void> };
  listeners: { close(): Promise<void> };
  runtime: { close(): Promise<void> };
  store: { close(): Promise<void> };
  embedding: { closed(): void };
}

/** Closes the parts in the order above; resolves once the store is closed. */
export async function releaseBroker(parts: BrokerReleaseParts): Promise<void> {
  for (const part of parts.closeFirst) part.close();
  parts.expiry.stop();
  await parts.mqtt.close();
  parts.admin.close();
  parts.push.close();
  await parts.cluster.close();
  await parts.listeners.close();
  await parts.runtime.close();
  await parts.store.close();
  parts.embedding.closed();
}

export interface BrokerDrainParts {
  logger: Logger;
  pending: PendingWork;
  io: BrokerServer;
  /** Open connections of both transports. */
  connections: () => number;
  /** Stops new connections, sweeps and revocation watches (the drain's first step). */
  stopAccepting: () => void;
  /** The parts `releaseBroker` closes; read at the stop (some are built after the drain). */
  release: () => BrokerReleaseParts;
}

/** The broker's graceful drain (see the module comment). */
export function brokerDrain(parts: BrokerDrainParts): GracefulDrain {
  return new GracefulDrain({
    logger: parts.logger,
    pending: parts.pending,
    connections: parts.connections,
    stopAccepting: parts.stopAccepting,
    closeTransports: (ms) => closeTransports(parts.io, ms),
    release: () => releaseBroker(parts.release()),
  });
}
