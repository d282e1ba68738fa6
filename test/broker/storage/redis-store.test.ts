import { afterAll, beforeAll } from 'vitest';
import pino from 'pino';
import { RedisStore } from '../../../broker/storage/redis-store';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { runStoreConformance } from './store-conformance';

const logger = pino({ level: 'silent' });
let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server.stop();
});

let n = 0;
let prefix = '';
runStoreConformance({
  name: 'redis',
  create: () => {
    prefix = `conf-${n++}`;
    return new RedisStore({ url: server.url, prefix, logger });
  },
  reopen: () => new RedisStore({ url: server.url, prefix, logger }),
});
