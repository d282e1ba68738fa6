/**
 * `brokerReadiness` (broker/http/broker-readiness.ts) maps each fact to its check's fixed
 * reason (`ReadinessReason`): the states the real-broker tests cannot all reach on demand
 * (a Redis store still opening or failed, an unbound MQTT listener, a cluster not started or
 * catching up, a store full after a failed write). Ready only when every check passes and the
 * broker is running.
 */
import { describe, expect, it } from 'vitest';
import type { ClusterReadiness } from '../../../broker/cluster/create-cluster';
import {
  brokerReadiness,
  type BrokerPhase,
  type ReadinessDeps,
} from '../../../broker/http/broker-readiness';
import { ReadinessReason as R, type StorageStatus } from '../../../shared/http-api';

function storage(reason: StorageStatus['reason']): StorageStatus {
  return {
    refusing_writes: reason !== null,
    reason,
    free_bytes: 1,
    total_bytes: 2,
    reserve_bytes: 1,
    path: '/data',
  };
}

interface Facts {
  listening: boolean;
  mqtt: boolean | null;
  storage: StorageStatus | undefined;
  cluster: ClusterReadiness | null;
  phase: BrokerPhase;
}

function reader(facts: Facts, storeOpened: Promise<unknown> = Promise.resolve()) {
  const deps: ReadinessDeps = {
    listening: () => facts.listening,
    mqtt: () => facts.mqtt,
    storeOpened,
    storage: () => facts.storage,
    cluster: () => facts.cluster,
    phase: () => facts.phase,
  };
  return brokerReadiness(deps);
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('brokerReadiness', () => {
  it('maps every fact to its reason, and is ready only when all pass while running', async () => {
    const facts: Facts = {
      listening: true,
      mqtt: null,
      storage: storage(null),
      cluster: { redisUp: true, started: true, caughtUp: true },
      phase: 'running',
    };
    const read = reader(facts);
    await flush();
    expect(read()).toEqual({
      ready: true,
      draining: false,
      checks: { listeners: R.OK, store: R.OK, redis: R.OK, catch_up: R.OK },
    });
    const cases: Array<[Partial<Facts>, Partial<Record<string, string>>]> = [
      [{ listening: false }, { listeners: R.NOT_LISTENING }],
      [{ mqtt: false }, { listeners: R.MQTT_NOT_LISTENING }],
      [{ mqtt: true }, { listeners: R.OK }],
      [{ storage: storage('low_free_space') }, { store: R.LOW_FREE_SPACE }],
      [{ storage: storage('store_full') }, { store: R.STORE_FULL }],
      [{ storage: undefined }, { store: R.OK }],
      [
        { cluster: { redisUp: false, started: true, caughtUp: true } },
        { redis: R.REDIS_UNREACHABLE },
      ],
      [
        { cluster: { redisUp: true, started: false, caughtUp: false } },
        { catch_up: R.CLUSTER_STARTING },
      ],
      [{ cluster: { redisUp: true, started: true, caughtUp: false } }, { catch_up: R.CATCHING_UP }],
      [{ cluster: null }, { redis: R.NOT_CLUSTERED, catch_up: R.NOT_CLUSTERED }],
    ];
    for (const [change, checks] of cases) {
      const state = reader({ ...facts, ...change });
      await flush();
      const got = state();
      const passing = Object.values(checks).every((v) => v === R.OK || v === R.NOT_CLUSTERED);
      expect({ change, ready: got.ready, checks: got.checks }).toEqual({
        change,
        ready: passing,
        checks: expect.objectContaining(checks),
      });
    }
    facts.phase = 'draining';
    expect(read()).toMatchObject({ ready: false, draining: true, checks: { store: R.OK } });
    facts.phase = 'closed';
    expect(read()).toMatchObject({
      ready: false,
      draining: true,
      checks: { store: R.STORE_CLOSED },
    });
  });

  it('says the store is opening until it opened, and unavailable when it could not', async () => {
    const facts: Facts = {
      listening: true,
      mqtt: null,
      storage: undefined,
      cluster: null,
      phase: 'running',
    };
    let open!: () => void;
    const opening = reader(facts, new Promise<void>((resolve) => (open = resolve)));
    const failing = reader(facts, Promise.reject(new Error('Redis store unreachable')));
    await flush();
    expect(opening()).toMatchObject({ ready: false, checks: { store: R.STORE_OPENING } });
    expect(failing()).toMatchObject({ ready: false, checks: { store: R.STORE_UNAVAILABLE } });
    open();
    await flush();
    expect(opening()).toMatchObject({ ready: true, checks: { store: R.OK } });
  });
});
