/**
 * A durable `SUBSCRIBE` whose row the store cannot write (full disk, store down) on a real
 * SQLite file: the subscription works on its connection, and the subscriber is told with
 * `ERROR {code: -8}` that a restart would forget it (docs/protocol.md error codes). Faults are
 * injected by making the broker's own store instance refuse `saveSubscription`, as a full disk
 * would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProtocolErrorCode, ServerEvent } from '../../../shared/protocol-events';
import type { ProtocolError } from '../../../shared/protocol-events';
import { exactConsumeEvent, produce, subscribe, useBroker } from '../../helpers/broker-harness';
import { expectNothing, waitFor } from '../../helpers/wait';

const dir = mkdtempSync(join(tmpdir(), 'swb-sub-fault-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx = useBroker({
  storage: 'sqlite',
  get storage_options() {
    return { filename: join(dir, `s${++files}.sqlite`) };
  },
} as never);
const JOB = exactConsumeEvent('fleet', 'job');

describe('a durable SUBSCRIBE the store cannot save', () => {
  it('is answered ERROR -8, and the live subscription still delivers', async () => {
    const { h } = ctx;
    h.broker.store.saveSubscription = () =>
      Promise.reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    const c = await h.consumer('w1');
    const error = waitFor<ProtocolError>(c, ServerEvent.ERROR);
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
    const e = await error;
    expect(e.code).toBe(ProtocolErrorCode.NOT_STORED);
    expect(e.message).toMatch(/^Durable subscription not stored .*disk is full/);

    const p = await h.producer('fleet');
    const got = waitFor<{ message: unknown }>(c, JOB);
    produce(p, 'fleet', 'job', 'live');
    expect((await got).message).toBe('live');
  });

  it('a durable SUBSCRIBE that is saved gets no ERROR', async () => {
    const { h } = ctx;
    const c = await h.consumer('w2');
    const none = expectNothing(c, ServerEvent.ERROR);
    await subscribe(c, 'w2', 'fleet', 'job', { durable: true });
    await h.settle(c);
    await none;
    expect(await h.broker.store.loadSubscriptions()).toContainEqual(
      expect.objectContaining({ consumer: 'w2', realm: 'default' }),
    );
  });
});
