/**
 * A taken MQTT port (issue 14): the library refuses `listen()` with `SWB_ERR_PORT_IN_USE` naming
 * the MQTT port and releases the HTTP port; the CLI exits with `CliExitCode.PORT_IN_USE` and a
 * message naming the MQTT port and the flag that changes it.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker } from '../../../broker/index';
import { CliExitCode } from '../../../shared/cli-conventions';
import { runBrokerToExit } from '../../helpers/broker-process';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let blocker: Server;
let taken: number;
let dir: TempDir;

beforeEach(async () => {
  dir = await makeTempDir();
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  taken = (blocker.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
  await dir.remove();
});

describe('MQTT port in use', () => {
  it('listen() rejects with SWB_ERR_PORT_IN_USE naming the MQTT port, and frees the HTTP port', async () => {
    const broker = createBroker(
      { mqtt: { enabled: true, port: taken } },
      { logger: pino({ level: 'silent' }), dataDir: dir.path },
    );
    await expect(broker.listen(0, '127.0.0.1')).rejects.toMatchObject({
      code: 'SWB_ERR_PORT_IN_USE',
      message: expect.stringContaining(`MQTT port ${taken} is already in use`),
    });
    expect(broker.status().listening).toBe(false);
    await broker.close();
  });

  it('the CLI exits PORT_IN_USE with a message naming the MQTT port and --mqtt-port', async () => {
    const { code, stderr } = await runBrokerToExit([
      '--port',
      '0',
      '--data-dir',
      dir.path,
      '--mqtt-port',
      String(taken),
    ]);
    expect(code).toBe(CliExitCode.PORT_IN_USE);
    expect(stderr).toContain(`MQTT port ${taken} is already in use`);
    expect(stderr).toContain('--mqtt-port');
  }, 60_000);
});
