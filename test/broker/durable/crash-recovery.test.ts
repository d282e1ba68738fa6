/**
 * Crash safety (ARCHITECTURE §4): with SQLite, and with Redis storage, every PRODUCE confirmed to
 * the publisher survives a `kill -9` of the broker process and is delivered at least once after
 * restart. Real processes: the broker runs `broker/cli.ts` as a child, as the console runs it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ClientEvent,
  consumeEvent,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../../shared/protocol-events';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { delay } from '../../helpers/wait';

const TOTAL = 10_000;
const KILL_AFTER = 4_000;
const WINDOW = 400;
const JOB = consumeEvent(subscriptionKey('fleet', 'job'));
const SUBSCRIPTION = {
  event: 'job',
  producer: 'fleet',
  consumer: 'crash-w',
  consumer_id: 'crash-w',
  durable: true,
  ack: true,
};

const open: Array<{ close(): unknown }> = [];
let brokers: BrokerProcess[] = [];
let dir = '';
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  for (const s of open.splice(0)) s.close();
  for (const b of brokers) await b.stop();
  brokers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function connect(url: string): Promise<Socket> {
  const s = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  open.push(s);
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

/** Broker arguments: SQLite in the data directory, or Redis through a settings file there. */
function brokerArgs(storage: 'sqlite' | 'redis'): string[] {
  const args = ['--port', '0', '--data-dir', dir];
  if (storage === 'sqlite') return args;
  const settings = join(dir, 'settings.json');
  writeFileSync(
    settings,
    JSON.stringify({ storage: 'redis', storage_options: { url: redis.url, prefix: 'crash' } }),
  );
  return [...args, '--settings', settings];
}

describe.each(['sqlite', 'redis'] as const)('kill -9 with %s storage', (storage) => {
  it('delivers every confirmed durable message after a restart (losses 0)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'swb-crash-'));
    const first = await startBrokerProcess(brokerArgs(storage));
    brokers.push(first);

    const consumer = await connect(first.url);
    consumer.emit(ClientEvent.CONSUMER, { name: 'crash-w', id: 'crash-w', consumer_id: 'crash-w' });
    consumer.emit(ClientEvent.SUBSCRIBE, SUBSCRIPTION);
    await consumer.timeout(5000).emitWithAck(ClientEvent.PING, {});
    consumer.close();
    await delay(100);

    // Produce with publisher confirms, a bounded window in flight; SIGKILL mid-stream.
    const producer = await connect(first.url);
    producer.emit(ClientEvent.PRODUCER, { name: 'fleet' });
    const confirmed = new Set<number>();
    let sent = 0;
    let inFlight = 0;
    let killed = false;
    await new Promise<void>((resolve) => {
      producer.once('disconnect', () => resolve());
      const pump = (): void => {
        while (!killed && inFlight < WINDOW && sent < TOTAL) {
          const i = sent++;
          inFlight++;
          producer.emit(
            ClientEvent.PRODUCE,
            { event: 'job', message: i, from: 'fleet' },
            (reply: { ok: boolean }) => {
              inFlight--;
              if (reply.ok) confirmed.add(i);
              if (!killed && confirmed.size >= KILL_AFTER) {
                killed = true;
                first.child.kill('SIGKILL');
              }
              pump();
            },
          );
        }
        if (sent >= TOTAL && inFlight === 0) resolve();
      };
      pump();
    });
    await first.exited;
    const confirmedBeforeKill = confirmed.size;
    expect(killed).toBe(true);
    expect(confirmed.size).toBeGreaterThanOrEqual(KILL_AFTER);

    // Restart on the same data directory. The producer comes back first and sends the rest:
    // the restarted broker still knows the offline durable subscriber and stores for it.
    const second = await startBrokerProcess(brokerArgs(storage));
    brokers.push(second);
    const again = await connect(second.url);
    again.emit(ClientEvent.PRODUCER, { name: 'fleet' });
    const afterRestart = await Promise.all(
      Array.from({ length: TOTAL - sent }, (_, k) => sent + k).map(
        (i) =>
          new Promise<boolean>((resolve) =>
            again.emit(
              ClientEvent.PRODUCE,
              { event: 'job', message: i, from: 'fleet' },
              (reply: { ok: boolean; msgIds: string[] }) => {
                if (reply.ok && reply.msgIds.length === 1) confirmed.add(i);
                resolve(reply.ok && reply.msgIds.length === 1);
              },
            ),
          ),
      ),
    );
    expect(afterRestart.every(Boolean)).toBe(true);
    expect(confirmed.size).toBeGreaterThanOrEqual(KILL_AFTER + afterRestart.length);
    const back = await connect(second.url);
    const received: number[] = [];
    const seen = new Set<number>();
    let last = Date.now();
    back.on(JOB, (env: DeliveryEnvelope) => {
      received.push(env.message as number);
      seen.add(env.message as number);
      last = Date.now();
      back.emit(ClientEvent.ACK, { msgId: env.msgId });
    });
    back.emit(ClientEvent.CONSUMER, { name: 'crash-w', id: 'crash-w', consumer_id: 'crash-w' });
    back.emit(ClientEvent.SUBSCRIBE, SUBSCRIPTION);
    // Wait for every confirmed message (bounded), then a quiet spell to count duplicates.
    const deadline = Date.now() + 60_000;
    const allIn = () => [...confirmed].every((i) => seen.has(i));
    while (!allIn() && Date.now() < deadline) await delay(100);
    while (Date.now() - last < 500) await delay(100);

    const got = new Set(received);
    const lost = [...confirmed].filter((i) => !got.has(i));
    const duplicates = received.length - got.size;
    const unconfirmedDelivered = [...got].filter((i) => !confirmed.has(i)).length;
    console.log(
      JSON.stringify({
        crash: {
          storage,
          sentBeforeKill: sent,
          confirmed: confirmed.size,
          delivered: received.length,
          unique: got.size,
          duplicates,
          lost: lost.length,
          unconfirmedDelivered,
        },
      }),
    );
    expect(lost).toEqual([]);
    // Replay is oldest first (§9.4).
    expect([...received].sort((a, b) => a - b)).toEqual(received);
    expect(got.size).toBeGreaterThanOrEqual(TOTAL - (sent - confirmedBeforeKill));
  }, 120_000);
});
