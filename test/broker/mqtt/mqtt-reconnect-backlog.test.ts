/**
 * A persistent session reconnecting while messages keep coming (issue 24, replayed bug report:
 * "on reconnect, a message published at that moment lands inside a persistent session's stored
 * backlog", 2 of 3 rounds): the stored backlog comes first, in order, then what was published
 * after, each message once, nothing lost — whether the stream comes from an MQTT client or from
 * a tyo-mq (socket.io) producer through the bridge, for MQTT 3.1.1 (Clean Session 0) and MQTT 5
 * (Clean Start 0), on the SQLite store and in memory. Repeated over several rounds.
 */
import type { IClientOptions, MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import { produce, type Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, sessionPresent } from '../../helpers/mqtt-clients';
import { type MqttStorage, useRestartingBrokers } from '../../helpers/mqtt-restarts';
import { expectNothing, waitUntil } from '../../helpers/wait';

const brokers = useRestartingBrokers('backlog.sqlite');

/** Messages queued while away, then published around the reconnect. */
const BACKLOG = 20;
const DURING = 40;
const ROUNDS = 5;

type Source = 'mqtt' | 'socket.io';

/** A producer sending `n` numbered QoS 1 messages to `topic`, resolving when all are routed. */
async function producer(h: Harness, source: Source): Promise<(topic: string, i: number) => void> {
  if (source === 'mqtt') {
    const p = await mqttClient(h, { protocolVersion: 5 });
    return (topic, i) => void p.publishAsync(topic, String(i), { qos: 1 });
  }
  const p = await h.producer('feeder');
  return (topic, i) => produce(p, 'feeder', topic, String(i));
}

/** Lets the event loop run once (the stream goes on while the client reconnects). */
const yieldOnce = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One round's reconnected client and what it received so far (it keeps listening). */
interface Reconnected {
  r: number;
  again: MqttClient;
  got: number[];
}

async function round(
  h: Harness,
  source: Source,
  opts: IClientOptions,
  r: number,
): Promise<Reconnected> {
  const topic = `feed/${r}/x`;
  const before = h.broker.status().connectionsCurrent;
  const first = await mqttClient(h, opts);
  await first.subscribeAsync(`feed/${r}/#`, { qos: 1 });
  await first.endAsync();
  await waitUntil(() => h.broker.status().connectionsCurrent === before, 'the subscriber is gone');
  const send = await producer(h, source);
  for (let i = 0; i < BACKLOG; i++) send(topic, i);
  await yieldOnce();

  const again = mqttConnecting(h, opts);
  const got: number[] = [];
  again.on('message', (_t, payload) => got.push(Number(payload.toString())));
  const present = sessionPresent(again);
  for (let i = BACKLOG; i < BACKLOG + DURING; i++) {
    send(topic, i);
    if (i % 4 === 0) await yieldOnce();
  }
  expect(await present).toBe(true);
  const total = BACKLOG + DURING;
  await waitUntil(() => got.length >= total, `${total} messages (round ${r})`, 10_000);
  return { r, again, got };
}

describe.each<MqttStorage>(['sqlite', 'memory'])(
  'reconnecting into the backlog (%s)',
  (storage) => {
    it.each<[4 | 5, Source]>([
      [4, 'mqtt'],
      [5, 'mqtt'],
      [4, 'socket.io'],
      [5, 'socket.io'],
    ])(
      'MQTT %i, stream from %s: backlog first, then the rest, each once, in order',
      async (protocolVersion, source) => {
        const h = await brokers.start(storage);
        // Each round is its own session, so a defect in one cannot hide in the next.
        const rounds: Reconnected[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const opts: IClientOptions = {
            protocolVersion,
            clientId: `backlog-${protocolVersion}-${source}-${r}`,
            clean: false,
            ...(protocolVersion === 5 && { properties: { sessionExpiryInterval: 600 } }),
          };
          rounds.push(await round(h, source, opts, r));
        }
        // One quiet period for all rounds (issue 26: one per round cost 1 s per case); every
        // client kept listening since its round, so a late duplicate still shows in its list.
        await Promise.all(rounds.map(({ again }) => expectNothing(again, 'message')));
        const total = BACKLOG + DURING;
        for (const { r, got } of rounds) {
          expect(got, `round ${r}`).toEqual(Array.from({ length: total }, (_, i) => i));
        }
        await Promise.all(rounds.map(({ again }) => again.endAsync()));
      },
      60_000,
    );
  },
);
