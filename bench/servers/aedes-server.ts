/**
 * The MQTT baseline: plain aedes (no auth hooks, in-memory persistence) on an ephemeral TCP
 * port on 127.0.0.1, run as a child process of the benchmark (`server-process.ts` protocol).
 */
import { createServer, type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import { serveOverIpc } from './server-process';

serveOverIpc(async () => {
  const aedes = await Aedes.createBroker();
  const server = createServer((conn) => aedes.handle(conn));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
});
