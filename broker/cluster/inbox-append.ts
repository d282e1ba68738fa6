/**
 * Adds an entry to a node's relay inbox and counts its messages, in one step on Redis
 * (docs/cluster.md "What is relayed").
 *
 * Each inbox `<prefix>:inbox:<node>` has a counter `<inbox>:added`: the messages ever added
 * to it. An entry carries, before its `m` fields, `n` = the counter once its own messages are
 * counted, so the reader knows how many messages were added before the entry and can tell,
 * exactly and in messages, what was trimmed before it read it (inbox-reader.ts): an entry may
 * hold several messages (inbox-batch.ts), so counting entries would not say.
 *
 * One Lua script (`INCRBY` then `XADD`), so the counter and the stream never disagree, even
 * with several nodes adding at once. The script is loaded once per connection (`EVALSHA`,
 * with ioredis's fallback to `EVAL` after a Redis restart).
 */
import type { Redis } from 'ioredis';
import { MAX_INBOX_ENTRIES } from './relay-members';

/** The counter of the messages added to `inbox`. */
export function addedKey(inbox: string): string {
  return `${inbox}:added`;
}

/** The entry field holding the counter (`n`). */
export const COUNT_FIELD = 'n';

const APPEND_LUA = `
local n = redis.call('INCRBY', KEYS[2], tonumber(ARGV[2]))
local args = {KEYS[1], 'MAXLEN', '~', ARGV[1], '*', '${COUNT_FIELD}', tostring(n)}
for i = 3, #ARGV do args[#args + 1] = ARGV[i] end
return redis.call('XADD', unpack(args))
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
  messages: number,
  ...fields: string[]
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
 * Adds one entry to `inbox` on `redis`: `fields` is its `[m, text, m, text, …]` list holding
 * `messages` messages. Resolves with the entry id; rejects with Redis's error.
 */
export function appendToInbox(
  redis: Redis,
  inbox: string,
  fields: string[],
  messages: number,
): Promise<string> {
  defineInboxCommands(redis);
  const append = (redis as unknown as Record<typeof COMMAND, AppendCommand>)[COMMAND];
  return append.call(redis, inbox, addedKey(inbox), MAX_INBOX_ENTRIES, messages, ...fields);
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
