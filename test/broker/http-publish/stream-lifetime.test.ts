/**
 * Streams end with what allowed them (`spec/protocol-extensions.md` Note 5-G, §5.1): turning
 * `http_publish` off by a settings reload closes the open streams and answers new requests
 * 404; revoking the static token behind a stream (directly or through a ticket) or removing
 * its realm closes it; other streams keep running.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAuthBroker, useAuthBroker } from '../../helpers/auth-clients';
import type { Harness } from '../../helpers/broker-harness';
import { openSse } from '../../helpers/sse-reader';
import { waitUntil } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { bearer, ON, publish, publishJson, TOKENS } from './http-publish-fixtures';

describe('turning the flag off', () => {
  let dir: TempDir | null = null;
  let h: Harness | null = null;
  afterEach(async () => {
    await h?.close();
    await dir?.remove();
    h = null;
    dir = null;
  });

  it('closes open streams and answers 404 after a reload', async () => {
    dir = await makeTempDir();
    const file = path.join(dir.path, 'settings.json');
    writeFileSync(file, JSON.stringify(ON));
    h = await startAuthBroker({ tokens: TOKENS }, {}, { settingsFile: file, watchSettings: false });
    const s = await openSse(h, '/sub/acme/notify', bearer('sub-acme'));
    expect(s.status).toBe(200);
    writeFileSync(file, JSON.stringify({ http_publish: { enabled: false } }));
    await h.broker.reloadSettings();
    await waitUntil(() => s.ended, 'the stream closed');
    expect(h.broker.httpPublish.streams()).toBe(0);
    expect((await publishJson(h, '/pub/acme/notify', {})).status).toBe(404);
  });
});

describe('revocation', () => {
  const ctx = useAuthBroker({ tokens: TOKENS }, ON);

  it('closes the streams of a revoked token, through a ticket too, and leaves the others', async () => {
    const direct = await openSse(ctx.h, '/sub/acme/notify', bearer('sub-acme'));
    const t = await publish(ctx.h, '/sub-ticket/acme', { token: 'sub-acme' });
    const viaTicket = await openSse(ctx.h, `/sub/acme/notify?ticket=${String(t.body.ticket)}`);
    const other = await openSse(ctx.h, '/sub/acme/notify', bearer('both-acme'));
    expect([direct.status, viaTicket.status, other.status]).toEqual([200, 200, 200]);
    ctx.h.broker.auth.update((draft) => {
      draft.tokens = draft.tokens.filter((e) => e.token !== 'sub-acme');
    }, 'command');
    await waitUntil(() => direct.ended && viaTicket.ended, 'the revoked streams closed');
    expect(ctx.h.broker.httpPublish.streams()).toBe(1);
    await publishJson(ctx.h, '/pub/acme/notify', { still: 'live' });
    await other.waitFrames(1);
    expect(other.ended).toBe(false);
  });

  it('closes the streams of a removed realm', async () => {
    ctx.h.broker.auth.update((draft) => {
      draft.realms.acme = {};
    }, 'command');
    const s = await openSse(ctx.h, '/sub/acme/notify', bearer('sub-acme'));
    const o = await openSse(ctx.h, '/sub/other/notify', bearer('sub-other'));
    ctx.h.broker.auth.update((draft) => {
      delete draft.realms.acme;
    }, 'command');
    await waitUntil(() => s.ended, 'the stream of the removed realm closed');
    expect(o.ended).toBe(false);
  });
});
