/**
 * Binary socket.io events (issue 7 item 5): the protocol carries JSON only (spec §1.2), yet a
 * `PRODUCE` with a Buffer (a placeholder plus one attachment) used to reach live subscribers as
 * a Buffer and durable ones as `{"type":"Buffer","data":[…]}`. Now every event carrying binary
 * data is refused with the protocol's error, nothing is delivered or stored, and the refusal
 * is counted in `tyo_mq_binary_refused_total{event}`.
 */
import { describe, expect, it } from 'vitest';
import { HttpPath } from '../../shared/http-api';
import { MetricName } from '../../shared/metric-names';
import { ClientEvent, ProtocolErrorCode, ServerEvent } from '../../shared/protocol-events';
import { exactConsumeEvent, produce, subscribe, sync, useBroker } from '../helpers/broker-harness';
import { expectNothing, waitFor } from '../helpers/wait';

const ctx = useBroker({ http_api: { enabled: true } });

describe('binary events (§1.2)', () => {
  it('refuses a PRODUCE carrying a Buffer with ERROR -1: nothing delivered, nothing stored, counted', async () => {
    const { h } = ctx;
    const live = await h.consumer('live');
    await subscribe(live, 'live', 'fleet', 'job');
    const durable = await h.consumer('keeper');
    await subscribe(durable, 'keeper', 'fleet', 'job', { durable: true });
    durable.disconnect();
    const p = await h.producer('fleet');

    const error = waitFor<{ message: string; code: number }>(p, ServerEvent.ERROR);
    const nothing = expectNothing(live, exactConsumeEvent('fleet', 'job'));
    p.emit(ClientEvent.PRODUCE, {
      event: 'job',
      from: 'fleet',
      message: { blob: Buffer.from('not json') },
    });
    expect(await error).toEqual({
      message: expect.stringMatching(/binary/),
      code: ProtocolErrorCode.BAD_FIELD,
    });
    await nothing;
    expect(await h.broker.store.dequeue('default', 'fleet-job', 'keeper')).toEqual([]);

    // Other binary shapes and events: a top-level Buffer, a chunk whose data is binary.
    const more = waitFor(p, ServerEvent.ERROR);
    p.emit(ClientEvent.PRODUCE_CHUNK, {
      transferId: 't',
      index: 0,
      total: 1,
      data: new Uint8Array([1, 2]),
    });
    await more;
    p.emit(ClientEvent.PRODUCE, Buffer.from('{"event":"job"}'));
    await sync(p);

    const text = await (await fetch(`${h.url}${HttpPath.METRICS}`)).text();
    expect(text).toContain(`${MetricName.BINARY_REFUSED_TOTAL}{event="PRODUCE"} 2`);
    expect(text).toContain(`${MetricName.BINARY_REFUSED_TOTAL}{event="PRODUCE_CHUNK"} 1`);

    // JSON keeps flowing.
    const got = waitFor(live, exactConsumeEvent('fleet', 'job'));
    produce(p, 'fleet', 'job', 'plain');
    expect(await got).toMatchObject({ message: 'plain' });
  });
});
