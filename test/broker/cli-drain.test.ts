/**
 * The CLI's graceful drain (issue 23; docs/http-api.md "Drain") on the real process
 * (`broker/cli.ts`, SQLite in a temp data directory), under load from stock socket.io-client
 * clients: a producer sending durable messages with publisher confirms as fast as they come
 * back, for an offline durable consumer. On SIGTERM `/ready` answers 503 `draining: true` at
 * once while new connections are still accepted for `shutdown.grace_ms`
 * (`TYO_MQ_SHUTDOWN__GRACE_MS`); the process exits 0 and logs one line when the drain starts and
 * one when it ends, with counts; a broker started again on the same data directory delivers
 * every message whose confirm said ok. A second SIGTERM during a long grace exits at once.
 */
import { io, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpPath, ReadinessSchema } from '../../shared/http-api';
import { SIGNAL_ECHO_MS } from '../../shared/cli-conventions';
import { ClientEvent } from '../../shared/protocol-events';
import { exactConsumeEvent } from '../helpers/broker-harness';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { consumerPayload, jsProducerPayload, jsSubscribePayload } from '../helpers/stock-clients';
import { waitFor, waitUntil, waitUntilAsync } from '../helpers/wait';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const GRACE_MS = 3_000;
const JOB = exactConsumeEvent('fleet', 'job');
type Confirm = { ok: boolean };

const brokers: BrokerProcess[] = [];
const sockets: Socket[] = [];
const dirs: TempDir[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) {
    s.io.reconnection(false);
    s.disconnect();
  }
  await Promise.all(brokers.splice(0).map((b) => b.stop()));
  await Promise.all(dirs.splice(0).map((d) => d.remove()));
});

async function start(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<BrokerProcess> {
  const broker = await startBrokerProcess(
    ['--port', '0', '--data-dir', dataDir, '--log-level', 'info'],
    20_000,
    env,
    { captureStdout: true },
  );
  brokers.push(broker);
  return broker;
}

/** A stock socket.io-client socket (default options: it reconnects), connected. */
async function stock(url: string): Promise<Socket> {
  const s = io(url, { forceNew: true });
  sockets.push(s);
  await waitFor(s, 'connect');
  return s;
}

async function readiness(url: string) {
  const res = await fetch(`${url}${HttpPath.READY}`);
  return { status: res.status, body: ReadinessSchema.parse(await res.json()) };
}

/** The JSON log line whose `msg` is `msg`, parsed. */
function logLine(out: string, msg: string): Record<string, unknown> | undefined {
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.msg === msg) return entry;
  }
  return undefined;
}

/** Identifies as the stock consumer and subscribes `w1` durably; resolves once handled. */
async function durableConsumer(url: string): Promise<Socket> {
  const c = await stock(url);
  c.emit(ClientEvent.CONSUMER, consumerPayload('w1'));
  c.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('w1', 'fleet', 'job', { durable: true }));
  await c.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });
  return c;
}

describe('switchboard-broker drains on SIGTERM', () => {
  it('answers /ready 503 during the grace, exits 0 with counts, and loses no confirmed message', async () => {
    const dir = await makeTempDir('switchboard-drain-');
    dirs.push(dir);
    const env = { TYO_MQ_SHUTDOWN__GRACE_MS: String(GRACE_MS) };
    const first = await start(dir.path, env);
    expect(await readiness(first.url)).toMatchObject({ status: 200, body: { ready: true } });

    const consumer = await durableConsumer(first.url);
    consumer.io.reconnection(false);
    consumer.disconnect();

    // Load: 16 confirms in flight at any time, until the producer's transport closes.
    const producer = await stock(first.url);
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
    const confirmed = new Set<string>();
    let closed = false;
    producer.once('disconnect', () => (closed = true));
    let seq = 0;
    const lane = async (): Promise<void> => {
      while (!closed) {
        const message = `m${seq++}`;
        try {
          const confirm = (await producer
            .timeout(5_000)
            .emitWithAck(ClientEvent.PRODUCE, { event: 'job', message, from: 'fleet' })) as Confirm;
          if (confirm.ok) confirmed.add(message);
        } catch {
          // No confirm (the transport closed first): at least once, so not counted.
        }
      }
    };
    const load = Promise.all(Array.from({ length: 16 }, lane));
    await waitUntil(() => confirmed.size >= 200, 'the load is under way', 20_000);

    first.child.kill('SIGTERM');
    await waitUntilAsync(
      async () => (await readiness(first.url)).status === 503,
      '/ready answers 503',
    );
    const during = await readiness(first.url);
    expect(during.body).toMatchObject({ ready: false, draining: true });
    // Still the grace: a newcomer is accepted and served, and the load goes on.
    const newcomer = await stock(first.url);
    expect(
      await newcomer.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true }),
    ).toBeDefined();
    const before = confirmed.size;
    await waitUntil(() => confirmed.size > before, 'confirms keep coming during the grace');

    expect(await first.exited).toBe(0);
    await load;
    const out = first.stdout();
    expect(logLine(out, 'stopping broker')).toMatchObject({
      reason: 'SIGTERM',
      grace_ms: GRACE_MS,
      timeout_ms: 10_000,
    });
    const end = logLine(out, 'broker stopped');
    expect(end).toMatchObject({ work_cut_short: 0, connections_cut_short: 0 });
    // The producer and the newcomer were still connected when the transports closed.
    expect(end?.connections_closed).toBeGreaterThanOrEqual(2);
    expect(end?.work_finished).toBeGreaterThan(0);
    expect(end?.elapsed_ms).toBeGreaterThanOrEqual(GRACE_MS);
    expect(out).not.toContain('asked to stop again');

    // Every confirmed message is delivered by the broker started again on the same data.
    const second = await start(dir.path);
    const got = new Set<string>();
    const back = await stock(second.url);
    back.on(JOB, (env: { message: string }) => got.add(env.message));
    back.emit(ClientEvent.CONSUMER, consumerPayload('w1'));
    back.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('w1', 'fleet', 'job', { durable: true }));
    await waitUntil(
      () => [...confirmed].every((m) => got.has(m)),
      `all ${confirmed.size} confirmed messages are delivered after the restart`,
      30_000,
    );
  }, 120_000);

  it('exits at once on a second SIGTERM during a long grace', async () => {
    const dir = await makeTempDir('switchboard-drain-');
    dirs.push(dir);
    const broker = await start(dir.path, { TYO_MQ_SHUTDOWN__GRACE_MS: '600000' });
    broker.child.kill('SIGTERM');
    await waitUntilAsync(
      async () => (await readiness(broker.url)).body.draining,
      '/ready says draining',
    );
    // One signal within SIGNAL_ECHO_MS is taken as the same Ctrl-C: repeat until one counts.
    let exited = false;
    void broker.exited.then(() => (exited = true));
    await waitUntilAsync(
      async () => {
        if (!exited) broker.child.kill('SIGTERM');
        return exited;
      },
      'the second signal ends the process',
      SIGNAL_ECHO_MS + 10_000,
    );
    expect(await broker.exited).toBe(0);
    expect(logLine(broker.stdout(), 'asked to stop again: exiting now')).toMatchObject({
      reason: 'SIGTERM',
    });
  }, 60_000);
});
