/**
 * A stock socket.io-client socket as the tyo-mq Node client builds it: socket.io's DEFAULT
 * options (reconnection on with its 1 s…5 s back-off, polling then a WebSocket upgrade), and a
 * handler that runs on every 'connect' — the tyo-mq client identifies and replays its
 * subscriptions there, which is how it comes back after a network drop or a broker restart.
 * `forceNew` only keeps two clients of one test process from sharing a connection.
 *
 * Also: waiting on a broker's `/api/stats` from outside its process.
 */
import { io, type Socket } from 'socket.io-client';
import { HttpPath } from '../../shared/http-api';
import { delay, DEFAULT_WAIT_MS, waitFor } from '../helpers/wait';

/** socket.io-client waits 1 s × 2^n ± 50 % (at most 5 s) between attempts: allow four rounds. */
export const RECONNECT_WAIT_MS = 20_000;

export interface StockClient {
  readonly socket: Socket;
  /** 'connect' events so far (the first connection included). */
  readonly connects: number;
  /** Reasons of every 'disconnect' so far, in order. */
  readonly reasons: string[];
  /** Resolves on the next 'connect' (registered now: call it before causing the reconnect). */
  nextConnect(timeoutMs?: number): Promise<void>;
  /** Resolves with the reason of the next 'disconnect'. */
  nextDisconnect(timeoutMs?: number): Promise<string>;
  /** Ends the client for good (no reconnect). */
  close(): void;
}

export function stockClient(url: string, onConnect: (socket: Socket) => void): StockClient {
  const socket = io(url, { forceNew: true });
  const reasons: string[] = [];
  let connects = 0;
  socket.on('connect', () => {
    connects++;
    onConnect(socket);
  });
  socket.on('disconnect', (reason: string) => {
    reasons.push(reason);
  });
  return {
    socket,
    get connects() {
      return connects;
    },
    reasons,
    nextConnect: async (timeoutMs = RECONNECT_WAIT_MS) => {
      await waitFor(socket, 'connect', timeoutMs);
    },
    nextDisconnect: (timeoutMs = DEFAULT_WAIT_MS) =>
      waitFor<string>(socket, 'disconnect', timeoutMs),
    close: () => {
      socket.io.reconnection(false);
      socket.disconnect();
    },
  };
}

/** Connected stock client (first 'connect' seen). */
export async function connectedStockClient(
  url: string,
  onConnect: (socket: Socket) => void,
): Promise<StockClient> {
  const client = stockClient(url, onConnect);
  const connected = client.nextConnect(DEFAULT_WAIT_MS);
  try {
    await connected;
  } catch (error) {
    client.close();
    throw error;
  }
  return client;
}

/** Realm counts of `/api/stats` (§15). */
export interface HttpRealmCounts {
  producers: { total: number; online: number };
  consumers: { total: number; online: number };
  subscriptions: number;
}

/** Polls `GET <url>/api/stats` every 20 ms until `condition` holds for the realm's counts. */
export async function waitForHttpStats(
  url: string,
  realm: string,
  condition: (counts: HttpRealmCounts | undefined) => boolean,
  what: string,
  timeoutMs = DEFAULT_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const res = await fetch(`${url}${HttpPath.STATS}`);
      const body = (await res.json()) as { realms: Record<string, HttpRealmCounts | undefined> };
      last = body;
      if (condition(body.realms[realm])) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting until ${what}; last: ${JSON.stringify(last)}`,
      );
    }
    await delay(20);
  }
}
