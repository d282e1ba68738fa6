/**
 * The admin CLI's connection (issue 10, `switchboard-admin`): a broker that goes away while a
 * command is in flight (killed mid bulk replay) ends the call at once with a ConnectionError
 * (exit code 3) that says the connection was lost — not "no answer … within 120000 ms", which
 * sent the operator looking for a slow broker.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { AdminConnection, ConnectionError } from '../../../broker/admin-cli/connection';
import { ClientEvent } from '../../../shared/protocol-events';

let http: HttpServer | null = null;
let io: Server | null = null;
let conn: AdminConnection | null = null;

afterEach(async () => {
  conn?.close();
  conn = null;
  await io?.close();
  io = null;
  http = null;
});

/** A socket.io server that drops the connection on the first management command, unanswered. */
async function droppingServer(): Promise<string> {
  http = createServer();
  io = new Server(http);
  io.on('connection', (socket) => {
    socket.on(ClientEvent.AUTH_MANAGEMENT_COMMAND, () => socket.disconnect(true));
  });
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

describe('AdminConnection', () => {
  it('fails at once when the connection drops before the answer', async () => {
    conn = await AdminConnection.open(await droppingServer(), 2_000);
    const started = Date.now();
    const call = conn.command('secret', { command: 'stats' }, 60_000);
    await expect(call).rejects.toBeInstanceOf(ConnectionError);
    await expect(call).rejects.toThrow(/connection to the broker lost/);
    // Well before the 60 s the command allows (the test's own timeout is 5 s).
    expect(Date.now() - started).toBeLessThan(4_000);
    // A later call on the dead connection fails at once too.
    await expect(conn.command('secret', { command: 'stats' }, 60_000)).rejects.toThrow(
      /connection to the broker lost/,
    );
  });
});
