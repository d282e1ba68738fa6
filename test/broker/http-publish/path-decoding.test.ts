/**
 * One path-decoding rule for `/pub` and `/sub` (`spec/protocol-extensions.md` Note 5-A): both
 * percent-decode their segments with `decodeURIComponent` (a malformed escape stays raw), so
 * a publisher and a stream on the same raw path meet, whatever `%20`, `%2F`, `+` or `%23`
 * they hold. Wildcards: none on an SSE stream (§5.6, exact match); topic subscriptions on
 * sockets (core §11) match `/` events as usual.
 */
import { describe, expect, it } from 'vitest';
import { consumeEvent, Protocol } from '../../../shared/protocol-events';
import { pathSegments } from '../../../broker/http-publish/http-reply';
import { consumerIn, useAuthBroker } from '../../helpers/auth-clients';
import { subscribe } from '../../helpers/broker-harness';
import { openSse } from '../../helpers/sse-reader';
import { waitFor } from '../../helpers/wait';
import { bearer, ON, publish, publishJson, TOKENS } from './http-publish-fixtures';

describe('pathSegments', () => {
  it('splits on /, drops empty segments, decodes each, keeps a malformed escape raw', () => {
    expect(pathSegments('/pub//acme/a%20b?x=1')?.segments).toEqual(['pub', 'acme', 'a b']);
    expect(pathSegments('/pub/acme/a%2Fb')?.segments).toEqual(['pub', 'acme', 'a/b']);
    expect(pathSegments('/pub/acme/a+b')?.segments).toEqual(['pub', 'acme', 'a+b']);
    expect(pathSegments('/pub/acme/a%2Bb')?.segments).toEqual(['pub', 'acme', 'a+b']);
    expect(pathSegments('/pub/acme/news%23')?.segments).toEqual(['pub', 'acme', 'news#']);
    // A bare # starts the fragment: it never reaches the path.
    expect(pathSegments('/pub/acme/news#frag')?.segments).toEqual(['pub', 'acme', 'news']);
    expect(pathSegments('/pub/acme/%E0%A4%A')?.segments).toEqual(['pub', 'acme', '%E0%A4%A']);
    expect(pathSegments('/pub/acme?event=a%20b')?.query.get('event')).toBe('a b');
  });
});

describe('/pub and /sub decode alike', () => {
  const ctx = useAuthBroker({ tokens: TOKENS }, ON);

  for (const [raw, event] of [
    ['a%20b', 'a b'],
    ['sensors%2Ftemp', 'sensors/temp'],
    ['a+b', 'a+b'],
    ['a%2Bb', 'a+b'],
    ['news%23', 'news#'],
  ] as const) {
    it(`a publish on /pub/acme/${raw} reaches /sub/acme/${raw} as event "${event}"`, async () => {
      const s = await openSse(ctx.h, `/sub/acme/${raw}`, bearer('sub-acme'));
      expect((await publishJson(ctx.h, `/pub/acme/${raw}`, { raw })).status).toBe(202);
      const [frame] = await s.waitFrames(1);
      expect(frame?.data).toMatchObject({ event, data: { raw } });
    });
  }

  it('the ?event= form names the same event as the decoded path', async () => {
    const s = await openSse(ctx.h, '/sub/acme/a%20b', bearer('sub-acme'));
    await publish(ctx.h, '/pub/acme?event=a%20b', { body: 'q' });
    const [frame] = await s.waitFrames(1);
    expect(frame?.data).toMatchObject({ event: 'a b', data: 'q' });
  });

  it('socket subscribers see the decoded event', async () => {
    const c = await consumerIn(ctx.h, { token: 'sub-acme' }, 'c1');
    await subscribe(c, 'c1', Protocol.ALL_PUBLISHERS, 'a b');
    const got = waitFor(c, consumeEvent('tyo-mq-all-a b'));
    await publish(ctx.h, '/pub/acme/a%20b', { body: 'spaced' });
    expect(await got).toMatchObject({ event: 'a b', message: 'spaced' });
  });

  it('no wildcard on a stream: /sub/acme/news%2F%23 gets only the literal event "news/#"', async () => {
    const s = await openSse(ctx.h, '/sub/acme/news%2F%23', bearer('sub-acme'));
    await publish(ctx.h, '/pub/acme/news%2Fa', { body: 'not for the stream' });
    await publish(ctx.h, '/pub/acme/news%2F%23', { body: 'literal' });
    const [frame] = await s.waitFrames(1);
    expect(frame?.data).toMatchObject({ event: 'news/#', data: 'literal' });
    expect(s.frames).toHaveLength(1);
  });

  it('a socket topic subscription (core §11) matches a %2F event with its wildcard', async () => {
    const c = await consumerIn(ctx.h, { token: 'sub-acme' }, 'c1');
    await subscribe(c, 'c1', Protocol.ALL_PUBLISHERS, 'news/#', { mode: 'topic' });
    const got = waitFor(c, consumeEvent('tyo-mq-all-news/#'));
    await publish(ctx.h, '/pub/acme/news%2Fsport', { body: 'goal' });
    expect(await got).toMatchObject({ event: 'news/sport', message: 'goal' });
  });
});
