/**
 * Conformance cases of Paho's 3.1.1 suite (`client_test.py`), each defined for MQTT 3.1.1 and,
 * as `client_test5.py` repeats them, for MQTT 5. Expectations follow the OASIS standards; where
 * Paho accepts two behaviours (QoS 0 offline queueing, overlapping subscriptions) so do we.
 */
import type { Packet } from 'mqtt-packet';
import {
  QUIET_MS,
  Skipped,
  check,
  defineCase,
  delay,
  equal,
  killSocket,
  until,
  type ConformanceCase,
  type Scope,
} from './conformance-kit';

/** Session options of a persistent session for the scope's version. */
const persistent = (s: Scope) =>
  s.version === 5 ? { clean: false, properties: { sessionExpiryInterval: 60 } } : { clean: false };

const basic = (s: Scope) => async () => {
  const c = await s.client('a');
  await c.mqtt.subscribeAsync(s.topic('basic'), { qos: 2 });
  for (const qos of [0, 1, 2] as const) await s.publish(c, s.topic('basic'), `q${qos}`, { qos });
  const got = await c.count(3);
  equal(
    got.map((m) => [m.text, m.qos]),
    [
      ['q0', 0],
      ['q1', 1],
      ['q2', 2],
    ],
    'messages',
  );
};

const retainedMessages = (s: Scope) => async () => {
  const pub = await s.client('pub');
  for (const [name, qos] of [
    ['a', 0],
    ['b', 1],
    ['c', 2],
  ] as const)
    await s.publish(pub, s.topic(`r/${name}`), `retained ${name}`, { qos, retain: true });
  const sub = await s.client('sub');
  await sub.mqtt.subscribeAsync(s.topic('r/+'), { qos: 2 });
  const got = await sub.count(3, 'the 3 retained messages');
  equal(
    got.map((m) => [m.topic.slice(-1), m.retain]).sort(),
    [
      ['a', true],
      ['b', true],
      ['c', true],
    ],
    'retained',
  );
  for (const name of ['a', 'b', 'c'])
    await s.publish(pub, s.topic(`r/${name}`), '', { qos: 1, retain: true });
  const later = await s.client('later');
  await later.mqtt.subscribeAsync([s.topic('r/+'), s.topic('mark')], { qos: 1 });
  // Retained messages are sent with the SUBACK, so the marker published after it comes last.
  await s.publish(pub, s.topic('mark'), 'mark', { qos: 1 });
  await later.count(1);
  equal(
    later.got.map((m) => m.topic),
    [s.topic('mark')],
    'after clearing, only the marker',
  );
};

const offlineQueueing = (s: Scope) => async () => {
  const sub = await s.client('sub', persistent(s));
  await sub.mqtt.subscribeAsync(s.topic('q/#'), { qos: 2 });
  await sub.mqtt.endAsync();
  const pub = await s.client('pub');
  for (const qos of [0, 1, 2] as const) await s.publish(pub, s.topic('q/x'), `q${qos}`, { qos });
  const back = await s.client('sub', persistent(s));
  await back.count(2, 'the queued QoS 1 and 2 messages');
  await delay(QUIET_MS);
  const texts = back.got.map((m) => m.text);
  check(['q1,q2', 'q0,q1,q2'].includes(texts.join()), `queued messages: ${texts.join()}`);
};

const willMessage = (s: Scope) => async () => {
  const sub = await s.client('sub');
  await sub.mqtt.subscribeAsync([s.topic('will'), s.topic('mark')], { qos: 1 });
  const will = (text: string) => ({
    topic: s.topic('will'),
    payload: Buffer.from(text),
    qos: 1 as const,
    retain: false,
  });
  const polite = await s.client('polite', { will: will('polite') });
  await polite.mqtt.endAsync();
  const rude = await s.client('rude', { will: will('rude') });
  killSocket(rude);
  await sub.count(1, 'the will of the abruptly closed client');
  const pub = await s.client('pub');
  await s.publish(pub, s.topic('mark'), 'mark', { qos: 1 });
  await sub.count(2);
  equal(
    sub.got.map((m) => m.text),
    ['rude', 'mark'],
    'wills (a DISCONNECT discards the will)',
  );
};

const zeroLengthClientId = (s: Scope) => async () => {
  const keep = await s.raw('zero-keep', s.emptyIdConnect(false), false);
  await keep.wait((seen) => seen.some((p) => p.cmd === 'connack'), 'CONNACK (clean 0, empty id)');
  const ack = keep.of<{ returnCode?: number; reasonCode?: number }>('connack')[0]!;
  if (s.version === 4) equal(ack.returnCode, 2, '3.1.1 clean 0 + empty id: identifier rejected');
  else check([0, 0x85].includes(ack.reasonCode ?? 0), `5 clean 0 + empty id: ${ack.reasonCode}`);
  const clean = await s.raw('zero-clean', s.emptyIdConnect(true));
  check(!clean.closed(), 'clean + empty id accepted');
};

const overlapping = (s: Scope) => async () => {
  const c = await s.client('a');
  await c.mqtt.subscribeAsync(s.topic('o/#'), { qos: 2 });
  await c.mqtt.subscribeAsync(s.topic('o/+'), { qos: 1 });
  await s.publish(c, s.topic('o/x'), 'overlap', { qos: 2 });
  await c.count(1);
  await delay(QUIET_MS);
  const qos = c.got.map((m) => m.qos).sort();
  // [MQTT-3.3.5-1]: one copy at the highest granted QoS, or one per subscription.
  check(
    JSON.stringify(qos) === '[2]' || JSON.stringify(qos) === '[1,2]',
    `copies at QoS ${qos.join()}`,
  );
};

const keepalive = (s: Scope) => async () => {
  const sub = await s.client('sub');
  await sub.mqtt.subscribeAsync(s.topic('ka'), { qos: 1 });
  const started = Date.now();
  const quiet = await s.raw('quiet', {
    keepalive: 1,
    will: { topic: s.topic('ka'), payload: Buffer.from('timed out'), qos: 1, retain: false },
  });
  await sub.count(1, 'the will of the silent client (keep alive 1 s)');
  check(quiet.closed() || Date.now() - started >= 1_000, 'closed after 1.5 × keep alive');
};

const redelivery = (s: Scope) => async () => {
  const raw = await s.raw('sub', persistent(s));
  raw.send({
    cmd: 'subscribe',
    messageId: 1,
    subscriptions: [{ topic: s.topic('d/#'), qos: 2 }],
  } as Packet);
  await raw.wait((seen) => seen.some((p) => p.cmd === 'suback'), 'SUBACK');
  const pub = await s.client('pub');
  await s.publish(pub, s.topic('d/x'), 'one', { qos: 1 });
  await s.publish(pub, s.topic('d/x'), 'two', { qos: 2 });
  await raw.wait((seen) => seen.filter((p) => p.cmd === 'publish').length >= 2, 'two PUBLISHes');
  raw.socket.destroy(); // never acknowledged
  const back = await s.raw('sub', persistent(s));
  await back.wait(
    (seen) => seen.filter((p) => p.cmd === 'publish').length >= 2,
    'redelivered PUBLISHes',
  );
  const again = back.of<{ payload: Buffer; dup: boolean; qos: number }>('publish');
  equal(
    again.map((p) => [p.payload.toString(), p.qos, p.dup]),
    [
      ['one', 1, true],
      ['two', 2, true],
    ],
    'redelivery',
  );
};

const subscribeFailure = (s: Scope) => async () => {
  const refused = s.target.subscribeRefused;
  if (!refused) throw new Skipped('the target has no refused subscription');
  const raw = await s.raw('refused', { ...refused.credentials });
  raw.send({
    cmd: 'subscribe',
    messageId: 7,
    subscriptions: [{ topic: refused.filter, qos: 1 }],
  } as Packet);
  await raw.wait((seen) => seen.some((p) => p.cmd === 'suback'), 'SUBACK');
  const ack = raw.of<{ granted: number[] }>('suback')[0]!;
  check(ack.granted[0]! >= 0x80, `SUBACK granted ${ack.granted.join()} (want a failure ≥ 0x80)`);
};

const unsubscribe = (s: Scope) => async () => {
  const c = await s.client('a');
  await c.mqtt.subscribeAsync([s.topic('u/a'), s.topic('u/b'), s.topic('u/c')], { qos: 1 });
  await c.mqtt.unsubscribeAsync(s.topic('u/b'));
  for (const t of ['a', 'b', 'c', 'a']) await s.publish(c, s.topic(`u/${t}`), t, { qos: 1 });
  await c.count(3);
  equal(
    c.got.map((m) => m.text),
    ['a', 'c', 'a'],
    'after UNSUBSCRIBE u/b',
  );
};

/** Publishes QoS 1 to a `$` topic raw; resolves with the PUBACK reason or 'closed'. */
async function dollarPublish(s: Scope, name: string): Promise<number | 'closed'> {
  const raw = await s.raw(name);
  raw.send({
    cmd: 'publish',
    topic: `$${s.id}/x`,
    payload: Buffer.from('dollar'),
    qos: 1,
    messageId: 3,
    retain: false,
    dup: false,
  } as Packet);
  await raw.wait((seen) => raw.closed() || seen.some((p) => p.cmd === 'puback'), 'PUBACK or close');
  const ack = raw.of<{ reasonCode?: number }>('puback')[0];
  return ack ? (ack.reasonCode ?? 0) : 'closed';
}

const dollarTopics = (s: Scope) => async () => {
  const sub = await s.client('sub');
  await sub.mqtt.subscribeAsync(['#', `+/x`], { qos: 1 });
  await dollarPublish(s, 'dollar');
  const pub = await s.client('pub');
  await s.publish(pub, s.topic('mark'), 'mark', { qos: 1 });
  await until(() => sub.got.some((m) => m.topic === s.topic('mark')), 'the marker');
  const dollar = sub.got.filter((m) => m.topic.startsWith('$'));
  equal(
    dollar.map((m) => m.topic),
    [],
    'wildcards matching $ topics [MQTT-4.7.2-1]',
  );
};

const dollarPolicy = (s: Scope) => async () => {
  const outcome = await dollarPublish(s, 'dollar');
  equal(outcome, s.version === 5 ? 0x87 : 'closed', 'PUBLISH to a $ topic');
};

const PER_VERSION: [string, (s: Scope) => () => Promise<void>, { policy?: 'switchboard' }?][] = [
  ['basic', basic],
  ['retained_messages', retainedMessages],
  ['offline_message_queueing', offlineQueueing],
  ['will_message', willMessage],
  ['zero_length_clientid', zeroLengthClientId],
  ['overlapping_subscriptions', overlapping],
  ['keepalive', keepalive],
  ['redelivery_on_reconnect', redelivery],
  ['subscribe_failure', subscribeFailure],
  ['unsubscribe', unsubscribe],
  ['dollar_topics', dollarTopics],
  ['dollar_publish_refused', dollarPolicy, { policy: 'switchboard' }],
];

/** The Paho 3.1.1 cases, for MQTT 3.1.1 then for MQTT 5. */
export const commonCases: ConformanceCase[] = ([4, 5] as const).flatMap((version) =>
  PER_VERSION.map(([name, body, opts]) => defineCase(name, version, (s) => body(s)(), opts)),
);
