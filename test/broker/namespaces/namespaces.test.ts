/**
 * Custom namespaces (`spec/protocol-admin.md` §16.1, §19 "namespaces"): real modules written to a
 * temp dir, a real broker, real socket.io clients on the namespaces.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Server } from 'socket.io';
import pino from 'pino';
import { io, type Socket } from 'socket.io-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NamespaceLoader } from '../../../broker/namespaces/namespace-loader';
import type { BrokerServer } from '../../../broker/transport/socket-types';
import { RemoteErrorText, RemoteEvent } from '../../../shared/protocol-events';
import { startBroker, type Harness } from '../../helpers/broker-harness';
import { waitFor } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let dir: TempDir;
const opened: Socket[] = [];
beforeEach(async () => {
  dir = await makeTempDir('swb-ns-');
  // An echo namespace: answers `hello` with its name and live options; api = {kind}.
  await writeFile(
    join(dir.path, 'echo.mjs'),
    `export default function attach(io, options, context) {
       io.of(context.name).on('connection', (s) => {
         s.on('hello', (ack) => ack({ name: context.name, options, live: context.getOptions() }));
       });
       return { kind: 'echo', started: options.tag ?? null };
     }\n`,
  );
  await writeFile(
    join(dir.path, 'object.cjs'),
    `module.exports = { attach(io, options, context) {
       io.of(context.name).on('connection', (s) => s.on('hello', (ack) => ack({ name: context.name })));
       return 'object-api';
     } };\n`,
  );
  await writeFile(join(dir.path, 'throws.mjs'), `throw new Error('boom at load');\n`);
  await writeFile(join(dir.path, 'not-a-function.mjs'), `export default 42;\n`);
});
afterEach(async () => {
  for (const s of opened.splice(0)) s.disconnect();
  await dir.remove();
});

function client(url: string, nsp: string): Promise<Socket> {
  const s = io(`${url}${nsp}`, { forceNew: true, reconnection: false, transports: ['websocket'] });
  opened.push(s);
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

async function withBroker(settings: object, fn: (h: Harness) => Promise<void>) {
  const h = await startBroker(settings);
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

describe('custom namespaces (§16.1)', () => {
  it('attaches configured modules, skips bad ones, keeps / and /remote reserved', async () => {
    await withBroker(
      {
        namespaces: {
          '/echo': { module: join(dir.path, 'echo.mjs'), options: { tag: 'a' } },
          plain: join(dir.path, 'object.cjs'),
          '/throws': join(dir.path, 'throws.mjs'),
          nofn: join(dir.path, 'not-a-function.mjs'),
          missing: join(dir.path, 'nope.mjs'),
          nomodule: { options: {} },
          '/remote': join(dir.path, 'echo.mjs'),
          '/': join(dir.path, 'echo.mjs'),
        },
      },
      async (h) => {
        const echo = await client(h.url, '/echo');
        expect(await echo.emitWithAck('hello')).toEqual({
          name: '/echo',
          options: { tag: 'a' },
          live: { tag: 'a' },
        });
        // Bare string path, name without a slash, options default to {}.
        const plain = await client(h.url, '/plain');
        expect(await plain.emitWithAck('hello')).toEqual({ name: '/plain' });
        expect(h.broker.namespaces['/echo']).toEqual({ kind: 'echo', started: 'a' });
        expect(h.broker.namespaces['/plain']).toBe('object-api');
        expect(Object.keys(h.broker.namespaces).sort()).toEqual(['/echo', '/plain']);
        expect(h.broker.namespaceModules()).toMatchObject({
          '/remote': { module: 'built-in' },
          '/echo': { module: join(dir.path, 'echo.mjs') },
        });
        // The broker still works, and /remote is still the built-in one.
        expect(await (await h.connect()).timeout(1_000).emitWithAck('PING', {})).toBeTruthy();
        const remote = await client(h.url, '/remote');
        const err = waitFor(remote, RemoteEvent.AUTH_ERROR);
        remote.emit(RemoteEvent.AUTH, { ticket: 'bogus' });
        expect(await err).toEqual({ message: RemoteErrorText.INVALID_TICKET });
      },
    );
  });

  it('attaches a name added by a settings change; getOptions() is live', async () => {
    const server: BrokerServer = new Server();
    const settings: { namespaces: Record<string, unknown> } = { namespaces: {} };
    const loader = new NamespaceLoader(server, () => settings, pino({ level: 'silent' }));
    try {
      expect(await loader.sync()).toEqual([]);
      settings.namespaces = { live: { module: join(dir.path, 'echo.mjs'), options: { v: 1 } } };
      expect(await loader.sync()).toEqual(['/live']);
      expect(await loader.sync()).toEqual([]); // never re-attached
      // Options changed later reach the module without a re-attach.
      settings.namespaces = { live: { module: join(dir.path, 'echo.mjs'), options: { v: 2 } } };
      server.listen(0);
      const port = (server.httpServer.address() as { port: number }).port;
      const s = await client(`http://127.0.0.1:${port}`, '/live');
      expect(await s.emitWithAck('hello')).toMatchObject({ options: { v: 1 }, live: { v: 2 } });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
