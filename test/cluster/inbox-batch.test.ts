/**
 * The streams relay's inbox entries (docs/cluster.md "What is relayed"): what a node relays in
 * one turn goes to each inbox as one entry of several messages, in order and within bounds
 * (`InboxBatch`); each entry carries the inbox's message count (`appendToInbox`), so a reader
 * counts exactly, in messages, what was trimmed before it read it, whether the gap is before
 * an entry still there or the whole inbox (`InboxReader`). A real `redis-server`.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendToInbox, defineInboxCommands } from '../../broker/cluster/inbox-append';
import {
  InboxBatch,
  MAX_ENTRY_BYTES,
  MAX_ENTRY_MESSAGES,
  readEntry,
} from '../../broker/cluster/inbox-batch';
import { InboxReader } from '../../broker/cluster/inbox-reader';
import { inboxTexts } from '../helpers/relay-inbox';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil, waitUntilAsync } from '../helpers/wait';

let redis: RedisServer;
let command: Redis;
beforeAll(async () => {
  redis = await startRedisServer();
  command = new Redis(redis.url, { enableAutoPipelining: true });
  defineInboxCommands(command);
});
afterAll(async () => {
  command.disconnect();
  await redis.stop();
});

let n = 0;
const freshInbox = () => `test-${process.pid}-${++n}:inbox:node-x`;

describe('InboxBatch', () => {
  it('groups one turn per inbox, in order, and schedules once per batch', () => {
    let scheduled = 0;
    const batch = new InboxBatch(() => (scheduled += 1));
    batch.add('a', '1');
    batch.add('b', 'x');
    batch.add('a', '2');
    expect(scheduled).toBe(1);
    const entries: Array<[string, string, number]> = [];
    batch.drain((inbox, messages, count) => entries.push([inbox, messages, count]));
    expect(entries).toEqual([
      ['a', '1\n2', 2],
      ['b', 'x', 1],
    ]);
    batch.add('a', '3');
    expect(scheduled).toBe(2);
  });

  it('starts a new entry past the message and size bounds; a large message goes alone', () => {
    const batch = new InboxBatch(() => undefined);
    for (let i = 0; i < MAX_ENTRY_MESSAGES + 1; i++) batch.add('a', String(i));
    const big = 'x'.repeat(MAX_ENTRY_BYTES);
    batch.add('b', 'small');
    batch.add('b', big);
    batch.add('b', 'after');
    const entries: Array<[string, number]> = [];
    batch.drain((inbox, _messages, count) => entries.push([inbox, count]));
    expect(entries).toEqual([
      ['a', MAX_ENTRY_MESSAGES],
      ['a', 1],
      ['b', 1],
      ['b', 1],
      ['b', 1],
    ]);
  });
});

describe('inbox message counts', () => {
  it('stamps each entry with the messages added up to it, across writers', async () => {
    const inbox = freshInbox();
    const other = new Redis(redis.url);
    defineInboxCommands(other);
    await appendToInbox(command, inbox, 'a1\na2', 2);
    await appendToInbox(other, inbox, 'b1', 1);
    await appendToInbox(command, inbox, 'a3\na4\na5', 3);
    other.disconnect();
    const entries = await command.xrange(inbox, '-', '+');
    expect(entries.map(([, fields]) => readEntry(fields).added)).toEqual([2, 3, 6]);
    expect(await inboxTexts(command, inbox)).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'a5']);
  });

  it('counts, in messages, a gap before an entry and an inbox trimmed empty', async () => {
    const inbox = freshInbox();
    const cursorKey = `${inbox}:cursor`;
    const start = async (got: string[]) => {
      const reader = new Redis(redis.url);
      const r = new InboxReader(
        { inbox, cursorKey },
        reader,
        command,
        (text) => {
          got.push(text);
          return null;
        },
        pino({ level: 'silent' }),
      );
      r.start();
      return r;
    };
    // Two entries (3 messages) trimmed before anything read them, one (2 messages) left.
    await appendToInbox(command, inbox, '1\n2', 2);
    await appendToInbox(command, inbox, '3', 1);
    await appendToInbox(command, inbox, '4\n5', 2);
    await command.xtrim(inbox, 'MAXLEN', 1);
    const got: string[] = [];
    const first = await start(got);
    await waitUntil(() => got.length === 2, 'the entry left is read');
    expect(got).toEqual(['4', '5']);
    expect(first.missed).toBe(3);
    await waitUntilAsync(
      async () => (await command.hget(cursorKey, 'read')) === '5',
      'the cursor counts 5 messages',
    );
    await first.close();

    // While the reader is away: 4 messages in 2 entries, all trimmed.
    await appendToInbox(command, inbox, '6\n7\n8', 3);
    await appendToInbox(command, inbox, '9', 1);
    await command.xtrim(inbox, 'MAXLEN', 0);
    const later: string[] = [];
    const second = await start(later);
    await waitUntil(() => second.missed === 4, 'missed 4 on resuming');
    expect(second.backlog).toBe(0);
    await appendToInbox(command, inbox, '10', 1);
    await waitUntil(() => later.length === 1, 'the next message is read');
    expect(later).toEqual(['10']);
    expect(second.missed).toBe(4);
    await second.close();
  });
});
