/**
 * The Lua scripts of the Redis message store: every change that touches more than one key runs
 * as one script, so it is atomic (a copy is never in the DLQ and the queue at once, an index
 * never loses a member whose hash is kept). Key layout: `redis-keys.ts`. `ARGV[1]` is always
 * the key prefix; keys are built inside the scripts, so the store needs a standalone Redis (or
 * Sentinel), not a sharded Redis Cluster.
 *
 * Scripts run through ioredis `defineCommand` (EVALSHA, falling back to EVAL after a restart of
 * Redis flushed its script cache).
 */

/** Shared helpers: a copy's realm, unlinking it from its queue, writing it. */
const PRELUDE = `
local P = ARGV[1]
local function realmOf(q) return string.match(q, '^[^:]*') end
local function unlink(id, q)
  local r = realmOf(q)
  redis.call('ZREM', P .. ':index:' .. q, id)
  redis.call('ZREM', P .. ':expiry:' .. r, q .. ':' .. id)
  if redis.call('EXISTS', P .. ':index:' .. q) == 0 then
    redis.call('SREM', P .. ':queues:' .. r, q)
    if redis.call('EXISTS', P .. ':queues:' .. r) == 0 then redis.call('SREM', P .. ':realms', r) end
  end
end
local function put(id, q, d, a, x, score, pexpire)
  local key = P .. ':message:' .. id
  local old = redis.call('HGET', key, 'q')
  if old then unlink(id, old) end
  redis.call('DEL', key)
  redis.call('HSET', key, 'd', d, 'a', a, 'q', q, 'x', x)
  local r = realmOf(q)
  if x ~= '' then
    redis.call('PEXPIREAT', key, pexpire)
    redis.call('ZADD', P .. ':expiry:' .. r, x, q .. ':' .. id)
  end
  redis.call('ZADD', P .. ':index:' .. q, score, id)
  redis.call('SADD', P .. ':queues:' .. r, q)
  redis.call('SADD', P .. ':realms', r)
end
`;

/** ARGV: P, id, q, d, attempts, expires ('' = never), score, pexpireat. */
const ENQUEUE = `${PRELUDE}
put(ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
return 1`;

/** ARGV: P, id. 1 when the copy existed. */
const REMOVE = `${PRELUDE}
local key = P .. ':message:' .. ARGV[2]
local q = redis.call('HGET', key, 'q')
if not q then return 0 end
redis.call('DEL', key)
unlink(ARGV[2], q)
return 1`;

/** ARGV: P, id, attempts. */
const SET_ATTEMPTS = `
local key = ARGV[1] .. ':message:' .. ARGV[2]
if redis.call('EXISTS', key) == 0 then return 0 end
redis.call('HSET', key, 'a', ARGV[3])
return 1`;

/**
 * ARGV: P, q, now. `[[id, d, a], …]` oldest first, expired copies skipped (left for the purge,
 * which reports them). A dangling member — hash gone (evicted, deleted by hand) and not
 * tracked by the expiry index — is pruned.
 */
const DEQUEUE = `${PRELUDE}
local q = ARGV[2]
local now = tonumber(ARGV[3])
local out = {}
for _, id in ipairs(redis.call('ZRANGE', P .. ':index:' .. q, 0, -1)) do
  local f = redis.call('HMGET', P .. ':message:' .. id, 'd', 'a', 'x', 'q')
  if not f[1] or f[4] ~= q then
    if not redis.call('ZSCORE', P .. ':expiry:' .. realmOf(q), q .. ':' .. id) then unlink(id, q) end
  elseif f[3] == '' or tonumber(f[3]) > now then
    out[#out + 1] = {id, f[1], f[2]}
  end
end
return out`;

/** ARGV: P, id, now, reason, dead_lettered_at, score. The id, or nil (missing or expired). */
const DEAD_LETTER = `${PRELUDE}
local id = ARGV[2]
local key = P .. ':message:' .. id
local f = redis.call('HMGET', key, 'q', 'x')
local q = f[1]
if not q then return false end
if f[2] ~= '' and tonumber(f[2]) <= tonumber(ARGV[3]) then return false end
unlink(id, q)
local dkey = P .. ':dlq:message:' .. id
local oldq = redis.call('HGET', dkey, 'q')
if oldq then redis.call('ZREM', P .. ':dlq:' .. realmOf(oldq), id) end
redis.call('RENAME', key, dkey)
redis.call('PERSIST', dkey)
redis.call('HSET', dkey, 'l', ARGV[4], 't', ARGV[5])
local r = realmOf(q)
redis.call('ZADD', P .. ':dlq:' .. r, ARGV[6], id)
redis.call('ZADD', P .. ':dlq-all', ARGV[6], id)
redis.call('SADD', P .. ':dlq-realms', r)
return id`;

/** ARGV: P, sorted set (`dlq-all` or `dlq:<b64u realm>`). `[[id, d, a, l, t], …]`. */
const LIST_DLQ = `
local P = ARGV[1]
local z = P .. ':' .. ARGV[2]
local out = {}
for _, id in ipairs(redis.call('ZRANGE', z, 0, -1)) do
  local f = redis.call('HMGET', P .. ':dlq:message:' .. id, 'd', 'a', 'l', 't')
  if not f[1] then
    redis.call('ZREM', z, id)
    redis.call('ZREM', P .. ':dlq-all', id)
  else
    out[#out + 1] = {id, f[1], f[2], f[3], f[4]}
  end
end
return out`;

/** ARGV: P, id, b64u realm, '1' when the realm must match. 1 when removed. */
const DISCARD_DLQ = `${PRELUDE}
local id = ARGV[2]
local dkey = P .. ':dlq:message:' .. id
local q = redis.call('HGET', dkey, 'q')
if not q then return 0 end
local r = realmOf(q)
if ARGV[4] == '1' and r ~= ARGV[3] then return 0 end
redis.call('DEL', dkey)
redis.call('ZREM', P .. ':dlq:' .. r, id)
redis.call('ZREM', P .. ':dlq-all', id)
return 1`;

/**
 * ARGV: P, id, the dead_lettered_at read (optimistic check), q, d, expires, score, pexpireat,
 * new id. Moves the DLQ entry back into its queue under the new id with attempts 0; 0 when it
 * changed or vanished.
 */
const REPLAY_DLQ = `${PRELUDE}
local id = ARGV[2]
local dkey = P .. ':dlq:message:' .. id
local f = redis.call('HMGET', dkey, 't', 'q')
if f[1] ~= ARGV[3] or f[2] ~= ARGV[4] then return 0 end
redis.call('DEL', dkey)
redis.call('ZREM', P .. ':dlq:' .. realmOf(ARGV[4]), id)
redis.call('ZREM', P .. ':dlq-all', id)
put(ARGV[9], ARGV[4], ARGV[5], '0', ARGV[6], ARGV[7], ARGV[8])
return 1`;

/** ARGV: P, b64u realm, now. Queued copies of the realm minus the expired ones. */
const COUNT_QUEUED = `
local P = ARGV[1]
local r = ARGV[2]
local n = 0
for _, q in ipairs(redis.call('SMEMBERS', P .. ':queues:' .. r)) do
  n = n + redis.call('ZCARD', P .. ':index:' .. q)
end
return n - redis.call('ZCOUNT', P .. ':expiry:' .. r, '-inf', ARGV[3])`;

/** ARGV: P. Flat `[q, n, q, n, …]`, expired copies included; forgets empty queues. */
const QUEUE_DEPTHS = `
local P = ARGV[1]
local out = {}
for _, r in ipairs(redis.call('SMEMBERS', P .. ':realms')) do
  for _, q in ipairs(redis.call('SMEMBERS', P .. ':queues:' .. r)) do
    local n = redis.call('ZCARD', P .. ':index:' .. q)
    if n > 0 then
      out[#out + 1] = q
      out[#out + 1] = n
    else
      redis.call('SREM', P .. ':queues:' .. r, q)
    end
  end
end
return out`;

/** ARGV: P. Flat `[b64u realm, n, …]`. */
const DLQ_DEPTHS = `
local P = ARGV[1]
local out = {}
for _, r in ipairs(redis.call('SMEMBERS', P .. ':dlq-realms')) do
  local n = redis.call('ZCARD', P .. ':dlq:' .. r)
  if n > 0 then
    out[#out + 1] = r
    out[#out + 1] = n
  else
    redis.call('SREM', P .. ':dlq-realms', r)
  end
end
return out`;

/** ARGV: P, now, limit. The queue of each copy removed (at most `limit`). */
const PURGE_EXPIRED = `${PRELUDE}
local left = tonumber(ARGV[3])
local out = {}
for _, r in ipairs(redis.call('SMEMBERS', P .. ':realms')) do
  if left <= 0 then break end
  local ez = P .. ':expiry:' .. r
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', ez, '-inf', ARGV[2], 'LIMIT', 0, left)) do
    local q, id = string.match(m, '^([^:]*:[^:]*:[^:]*):(.*)$')
    redis.call('ZREM', ez, m)
    if q and redis.call('ZSCORE', P .. ':index:' .. q, id) then
      local key = P .. ':message:' .. id
      if redis.call('HGET', key, 'q') == q then redis.call('DEL', key) end
      unlink(id, q)
      out[#out + 1] = q
      left = left - 1
    end
  end
end
return out`;

/** ARGV: P, q. Number of index members removed. */
const PURGE_QUEUE = `${PRELUDE}
local q = ARGV[2]
local ids = redis.call('ZRANGE', P .. ':index:' .. q, 0, -1)
for _, id in ipairs(ids) do
  local key = P .. ':message:' .. id
  if redis.call('HGET', key, 'q') == q then redis.call('DEL', key) end
  unlink(id, q)
end
return #ids`;

/** ARGV: P, b64u realm. Queued plus DLQ entries removed; the realm's subscriptions go too. */
const PURGE_REALM = `
local P = ARGV[1]
local r = ARGV[2]
local n = 0
for _, q in ipairs(redis.call('SMEMBERS', P .. ':queues:' .. r)) do
  for _, id in ipairs(redis.call('ZRANGE', P .. ':index:' .. q, 0, -1)) do
    local key = P .. ':message:' .. id
    if redis.call('HGET', key, 'q') == q then redis.call('DEL', key) end
    n = n + 1
  end
  redis.call('DEL', P .. ':index:' .. q)
end
redis.call('DEL', P .. ':queues:' .. r, P .. ':expiry:' .. r)
redis.call('SREM', P .. ':realms', r)
for _, id in ipairs(redis.call('ZRANGE', P .. ':dlq:' .. r, 0, -1)) do
  redis.call('DEL', P .. ':dlq:message:' .. id)
  redis.call('ZREM', P .. ':dlq-all', id)
  n = n + 1
end
redis.call('DEL', P .. ':dlq:' .. r)
redis.call('SREM', P .. ':dlq-realms', r)
local head = r .. ':'
for _, f in ipairs(redis.call('HKEYS', P .. ':subscriptions')) do
  if string.sub(f, 1, #head) == head then
    redis.call('HDEL', P .. ':subscriptions', f)
    redis.call('ZREM', P .. ':subscriptions:order', f)
  end
end
return n`;

/**
 * ARGV: P, b64u from, b64u to, JSON text of from, JSON text of to. Moves every queued copy
 * (index, expiry, queue sets), DLQ entry and durable subscription of realm `from` to `to`,
 * scores (order) and TTLs kept; each copy's `q` and the `realm` of its entry JSON are
 * rewritten. `false` (nothing changed) when `to` holds anything, else
 * `{queued, dlq, subscriptions}`.
 *
 * The entry JSON is `{"message":<envelope>,"id":…,"realm":…,…}` (redis-keys.ts `entryJson`):
 * its own `realm` key is the LAST `,"realm":` of the text, since the keys after it (event,
 * consumer, producer, dates) hold only strings and a `,"` never occurs inside a JSON string.
 * Rewriting that one occurrence keeps the envelope byte for byte (cjson would round numbers).
 */
const RENAME_REALM = `
local P, rf, rt, jf, jt = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if rf == rt then return false end
if redis.call('SISMEMBER', P .. ':realms', rt) == 1
  or redis.call('EXISTS', P .. ':queues:' .. rt, P .. ':expiry:' .. rt, P .. ':dlq:' .. rt) > 0 then
  return false
end
local fhead, thead = rf .. ':', rt .. ':'
local fields = redis.call('HKEYS', P .. ':subscriptions')
for _, f in ipairs(fields) do
  if string.sub(f, 1, #thead) == thead then return false end
end
local needle = ',"realm":' .. jf
local function retag(d)
  local at, from = nil, 1
  while true do
    local i = string.find(d, ',"realm":', from, true)
    if not i then break end
    at, from = i, i + 1
  end
  if at and string.sub(d, at, at + #needle - 1) == needle then
    return string.sub(d, 1, at - 1) .. ',"realm":' .. jt .. string.sub(d, at + #needle)
  end
  return d
end
local function moved(q) return rt .. string.sub(q, #rf + 1) end
local queued, dlq, subs = 0, 0, 0
for _, q in ipairs(redis.call('SMEMBERS', P .. ':queues:' .. rf)) do
  local nq = moved(q)
  for _, id in ipairs(redis.call('ZRANGE', P .. ':index:' .. q, 0, -1)) do
    local key = P .. ':message:' .. id
    local f = redis.call('HMGET', key, 'd', 'q')
    if f[2] == q then
      redis.call('HSET', key, 'd', retag(f[1]), 'q', nq)
    end
    queued = queued + 1
  end
  if redis.call('EXISTS', P .. ':index:' .. q) == 1 then
    redis.call('RENAME', P .. ':index:' .. q, P .. ':index:' .. nq)
    redis.call('SADD', P .. ':queues:' .. rt, nq)
  end
end
local ez = redis.call('ZRANGE', P .. ':expiry:' .. rf, 0, -1, 'WITHSCORES')
for i = 1, #ez, 2 do
  redis.call('ZADD', P .. ':expiry:' .. rt, ez[i + 1], moved(ez[i]))
end
redis.call('DEL', P .. ':queues:' .. rf, P .. ':expiry:' .. rf)
if redis.call('SREM', P .. ':realms', rf) == 1 and redis.call('EXISTS', P .. ':queues:' .. rt) == 1 then
  redis.call('SADD', P .. ':realms', rt)
end
for _, id in ipairs(redis.call('ZRANGE', P .. ':dlq:' .. rf, 0, -1)) do
  local key = P .. ':dlq:message:' .. id
  local f = redis.call('HMGET', key, 'd', 'q')
  if f[1] then redis.call('HSET', key, 'd', retag(f[1]), 'q', moved(f[2])) end
  dlq = dlq + 1
end
if redis.call('EXISTS', P .. ':dlq:' .. rf) == 1 then
  redis.call('RENAME', P .. ':dlq:' .. rf, P .. ':dlq:' .. rt)
  redis.call('SADD', P .. ':dlq-realms', rt)
end
redis.call('SREM', P .. ':dlq-realms', rf)
for _, f in ipairs(fields) do
  if string.sub(f, 1, #fhead) == fhead then
    local nf = moved(f)
    local score = redis.call('ZSCORE', P .. ':subscriptions:order', f)
    redis.call('HSET', P .. ':subscriptions', nf, redis.call('HGET', P .. ':subscriptions', f))
    redis.call('HDEL', P .. ':subscriptions', f)
    redis.call('ZREM', P .. ':subscriptions:order', f)
    if score then redis.call('ZADD', P .. ':subscriptions:order', score, nf) end
    subs = subs + 1
  end
end
return {queued, dlq, subs}`;

/** ARGV: P, field, record JSON, score (kept from the first save). */
const SAVE_SUBSCRIPTION = `
redis.call('HSET', ARGV[1] .. ':subscriptions', ARGV[2], ARGV[3])
redis.call('ZADD', ARGV[1] .. ':subscriptions:order', 'NX', ARGV[4], ARGV[2])
return 1`;

/** ARGV: P, field. */
const DELETE_SUBSCRIPTION = `
redis.call('HDEL', ARGV[1] .. ':subscriptions', ARGV[2])
redis.call('ZREM', ARGV[1] .. ':subscriptions:order', ARGV[2])
return 1`;

/** ARGV: P. `[[field, record JSON], …]` in first-saved order. */
const LOAD_SUBSCRIPTIONS = `
local P = ARGV[1]
local out = {}
for _, f in ipairs(redis.call('ZRANGE', P .. ':subscriptions:order', 0, -1)) do
  local v = redis.call('HGET', P .. ':subscriptions', f)
  if v then out[#out + 1] = {f, v} else redis.call('ZREM', P .. ':subscriptions:order', f) end
end
return out`;

/** Script name → Lua source, defined on the client as commands (`swb` + name). */
export const REDIS_SCRIPTS = {
  swbEnqueue: ENQUEUE,
  swbRemove: REMOVE,
  swbSetAttempts: SET_ATTEMPTS,
  swbDequeue: DEQUEUE,
  swbDeadLetter: DEAD_LETTER,
  swbListDlq: LIST_DLQ,
  swbDiscardDlq: DISCARD_DLQ,
  swbReplayDlq: REPLAY_DLQ,
  swbCountQueued: COUNT_QUEUED,
  swbQueueDepths: QUEUE_DEPTHS,
  swbDlqDepths: DLQ_DEPTHS,
  swbPurgeExpired: PURGE_EXPIRED,
  swbPurgeQueue: PURGE_QUEUE,
  swbPurgeRealm: PURGE_REALM,
  swbRenameRealm: RENAME_REALM,
  swbSaveSubscription: SAVE_SUBSCRIPTION,
  swbDeleteSubscription: DELETE_SUBSCRIPTION,
  swbLoadSubscriptions: LOAD_SUBSCRIPTIONS,
} as const;

export type ScriptName = keyof typeof REDIS_SCRIPTS;

/** The script commands as the client has them after `defineCommand` (ARGV only, no KEYS). */
export type ScriptCommands = {
  [K in ScriptName]: (...args: Array<string | number>) => Promise<unknown>;
};
