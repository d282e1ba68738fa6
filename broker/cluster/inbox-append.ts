/**
 * Adds an entry to a node's relay inbox and counts its messages, in one step on Redis
 * (docs/cluster.md "What is relayed").
 *
 * Each inbox `<prefix>:inbox:<node>` has a counter `<inbox>:added`: the messages ever added
 * to it. An entry carries, before its messages (`m`), `n` = the counter once its own messages are
 * counted, so the reader knows how many messages were added before the entry and can tell,
 * exactly and in messages, what was trimmed before it read it (inbox-reader.ts): an entry may
 * hold several messages (inbox-batch.ts), so counting entries would not say.
 *
 * One Lua script (`INCRBY` then `XADD`), so the counter and the stream never disagree, even
 * with several nodes adding at once. The script is loaded once per connection (`EVALSHA`,
 * with ioredis's fallback to `EVAL` after a Redis restart).
 */
import type { Redis } from 'ioredis';

/** Hard cap on an inbox's entries, applied on every add (approximate `MAXLEN ~`). */
export const MAX_INBOX_ENTRIES = 1_000_000;

/** The counter of the messages added to `inbox`. */
export function addedKey(inbox: string): string {
  return `${inbox}:added`;
}

/** The entry field holding the counter (`n`). */
export const COUNT_FIELD = 'n';
/** The field name of an inbox entry's messages. */
export const ENTRY_FIELD = 'm';
/**
 * Between two messages of an entry's `m` field: a message is JSON text (`JSON.stringify`),
 * which never holds a raw line feed.
 */
export const MESSAGE_SEPARATOR = '\n';

const APPEND_LUA = `
local n = redis.call('INCRBY', KEYS[2], tonumber(ARGV[2]))
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', '${COUNT_FIELD}', tostring(n), '${ENTRY_FIELD}', ARGV[3])
`;

const STATE_LUA = `
return {redis.call('XLEN', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or '0')}
`;

const COMMAND = 'swbInboxAppend';
const STATE_COMMAND = 'swbInboxState';

type AppendCommand = (
  inbox: string,
  counter: string,
  maxEntries: number,
  count: number,
  messages: string,
) => Promise<string>;

type StateCommand = (inbox: string, counter: string) => Promise<[number, number]>;

const defined = new WeakSet<Redis>();

/**
 * Defines the inbox scripts on `redis`; call it right after creating the connection, before
 * any command (with auto-pipelining, a command defined later fails in a pipeline started
 * before it: ioredis#1931). Calling it again is a no-op.
 */
export function defineInboxCommands(redis: Redis): void {
  if (defined.has(redis)) return;
  redis.defineCommand(COMMAND, { numberOfKeys: 2, lua: APPEND_LUA });
  redis.defineCommand(STATE_COMMAND, { numberOfKeys: 2, lua: STATE_LUA });
  defined.add(redis);
}

/**
 * Adds one entry to `inbox` on `redis`: `messages` is its `m` value, `count` messages joined by
 * line feeds (inbox-batch.ts). Resolves with the entry id; rejects with Redis's error.
 */
export function appendToInbox(
  redis: Redis,
  inbox: string,
  messages: string,
  count: number,
): Promise<string> {
  defineInboxCommands(redis);
  const append = (redis as unknown as Record<typeof COMMAND, AppendCommand>)[COMMAND];
  return append.call(redis, inbox, addedKey(inbox), MAX_INBOX_ENTRIES, count, messages);
}

/**
 * `inbox`'s length in entries and its message counter, read at one instant (a script: an
 * entry added between two separate answers would look trimmed). Rejects with Redis's error.
 */
export async function inboxState(
  redis: Redis,
  inbox: string,
): Promise<{ length: number; added: number }> {
  defineInboxCommands(redis);
  const state = (redis as unknown as Record<typeof STATE_COMMAND, StateCommand>)[STATE_COMMAND];
  const [length, added] = await state.call(redis, inbox, addedKey(inbox));
  return { length: Number(length), added: Number(added) };
}
