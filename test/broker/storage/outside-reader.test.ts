/**
 * Outside readers of the SQLite message store (issue 23 item 3): while a real broker runs, and
 * keeps committing, another process opens its database read-only (better-sqlite3, as the
 * `sqlite3` shell would) and reads the queue without "database is locked", each read a
 * consistent snapshot. The one-broker-per-file rule still holds across processes.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientEvent } from '../../../shared/protocol-events';
import { runBrokerToExit } from '../../helpers/broker-process';
import { produce, startBroker, subscribe, type Harness } from '../../helpers/broker-harness';
import { producePayload } from '../../helpers/stock-clients';
import { waitUntil } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const run = promisify(execFile);
const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * The outside reader: opens `file` read-only and, `reads` times, counts consumer `w`'s queue
 * and the highest sequence number in it within one read transaction. Prints JSON.
 */
const READER = `
const Database = require(process.argv[1]);
const [file, reads] = [process.argv[2], Number(process.argv[3])];
const db = new Database(file, { readonly: true, fileMustExist: true });
const q = db.prepare(
  "SELECT count(*) AS n, max(json_extract(payload, '$.message.s')) AS top FROM messages WHERE consumer = 'w'",
);
const snapshot = db.transaction(() => q.get());
const out = [];
for (let i = 0; i < reads; i++) {
  out.push(snapshot());
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
}
db.close();
process.stdout.write(JSON.stringify(out));
`;

async function outsideRead(
  file: string,
  reads: number,
): Promise<Array<{ n: number; top: number }>> {
  const { stdout } = await run(process.execPath, [
    '-e',
    READER,
    BETTER_SQLITE3,
    file,
    String(reads),
  ]);
  return JSON.parse(stdout) as Array<{ n: number; top: number }>;
}

let h: Harness | null = null;
let tmp: TempDir | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
  await tmp?.remove();
  tmp = null;
});

describe('an outside process reading the message store of a running broker', () => {
  it('reads the queue count without "database is locked", a consistent snapshot each time', async () => {
    tmp = await makeTempDir('swb-outside-reader-');
    h = await startBroker({ storage: 'sqlite' }, { dataDir: tmp.path, env: {} });
    const file = join(tmp.path, 'tyo-mq.sqlite');
    const c = await h.consumer('w');
    await subscribe(c, 'w', 'fleet', 'job', { durable: true, ack: true });
    await h.disconnect(c);
    const p = await h.producer('fleet');
    let seq = 0;
    for (; seq < 300; seq++) {
      const reply = (await p
        .timeout(5_000)
        .emitWithAck(
          ClientEvent.PRODUCE,
          producePayload('job', { s: seq }, { from: 'fleet' }),
        )) as {
        ok: boolean;
      };
      expect(reply.ok).toBe(true);
    }
    // Every copy confirmed is committed: the outside reader sees exactly them.
    expect(await outsideRead(file, 1)).toEqual([{ n: 300, top: 299 }]);

    // Now while the broker keeps committing: every read a snapshot, never a torn one.
    const pump = setInterval(() => {
      for (let i = 0; i < 20; i++) produce(p, 'fleet', 'job', { s: seq++ });
    }, 1);
    let reads: Array<{ n: number; top: number }>;
    try {
      reads = await outsideRead(file, 40);
    } finally {
      clearInterval(pump);
    }
    for (const r of reads) expect(r.n).toBe(r.top + 1);
    for (let i = 1; i < reads.length; i++)
      expect(reads[i]!.n).toBeGreaterThanOrEqual(reads[i - 1]!.n);
    expect(reads.at(-1)!.n).toBeGreaterThan(300);
    // The reader held the broker up at no point: it stored everything sent meanwhile.
    await waitUntil(() => h!.broker.status().produced === seq, 'every PRODUCE handled');
    await h.settle(p);
    expect(await h.broker.store.countQueued('default')).toBe(seq);
  }, 30_000);

  it('still refuses a second broker process on the same data directory', async () => {
    tmp = await makeTempDir('swb-outside-reader-');
    h = await startBroker({ storage: 'sqlite' }, { dataDir: tmp.path, env: {} });
    const second = await runBrokerToExit(['--port', '0', '--data-dir', tmp.path]);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toMatch(/tyo-mq\.sqlite: it is in use by another broker process/);
    // And an outside reader still gets in next to the broker.
    expect(await outsideRead(join(tmp.path, 'tyo-mq.sqlite'), 1)).toEqual([{ n: 0, top: null }]);
  }, 30_000);
});
