/**
 * The broker's HTTP servers (issue 8 items 11 and 12): `close()` in `attach()` mode gives the
 * host's server back (no listener of ours left, polling clients and `/api/stats` get the host's
 * answers), and two concurrent `listen()` calls cannot both bind.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { io } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { createBroker } from '../../broker/index';
import { HttpPath } from '../../shared/http-api';

const quiet = { logger: pino({ level: 'silent' }) };
const EVENTS = ['request', 'upgrade', 'close', 'listening'] as const;

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { connection: 'close' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

async function hostServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('host says no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('attach() and close()', () => {
  it('serves on the host server while attached, and nothing of ours is left after close()', async () => {
    const { server, port } = await hostServer();
    const counts = Object.fromEntries(EVENTS.map((e) => [e, server.listenerCount(e)]));
    const hostListener = server.listeners('request')[0];
    const broker = createBroker({ http_api: { enabled: true } }, quiet);
    broker.attach(server);
    try {
      expect((await get(port, HttpPath.STATS)).status).toBe(200);
      expect((await get(port, '/socket.io/?EIO=4&transport=polling')).status).toBe(200);
      expect(await get(port, '/elsewhere')).toEqual({ status: 404, body: 'host says no' });

      await broker.close();

      expect(Object.fromEntries(EVENTS.map((e) => [e, server.listenerCount(e)]))).toEqual(counts);
      expect(server.listeners('request')[0]).toBe(hostListener);
      expect(await get(port, HttpPath.STATS)).toEqual({ status: 404, body: 'host says no' });
      expect(await get(port, '/socket.io/?EIO=4&transport=polling')).toEqual({
        status: 404,
        body: 'host says no',
      });
      // A socket.io client gets nowhere.
      const client = io(`http://127.0.0.1:${port}`, {
        forceNew: true,
        reconnection: false,
        transports: ['polling'],
      });
      const outcome = await new Promise<string>((resolve) => {
        client.once('connect', () => resolve('connected'));
        client.once('connect_error', () => resolve('refused'));
      });
      client.close();
      expect(outcome).toBe('refused');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('listen()', () => {
  it('refuses a second concurrent listen() and leaks no server', async () => {
    const broker = createBroker({}, quiet);
    const first = broker.listen(0, '127.0.0.1');
    const second = broker.listen(0, '127.0.0.1');
    await expect(second).rejects.toThrow(/already listening/);
    const { port } = await first;
    expect(broker.status()).toMatchObject({ listening: true, port });
    await broker.close();
    // The port is free again: nothing else held it.
    const again = createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => again.close(() => resolve()));
  });

  it('can listen again after a failed bind (port in use), with nothing left from the failure', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as AddressInfo).port;
    const broker = createBroker({}, quiet);
    try {
      await expect(broker.listen(taken, '127.0.0.1')).rejects.toThrow(/already in use/);
      const { port } = await broker.listen(0, '127.0.0.1');
      expect(port).not.toBe(taken);
    } finally {
      await broker.close();
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
