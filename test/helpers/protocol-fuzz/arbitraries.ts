/**
 * fast-check arbitraries for the protocol fuzzer (issue 20, "standing defences"): hostile values
 * (wrong types, huge and deeply nested values, prototype keys, unicode edge cases with lone
 * surrogates, binary), near-valid payloads for every inbound socket.io event
 * (`shared/protocol-events.ts` ClientEvent), signed and unsigned envelopes for every management
 * command and proof-gated event, raw MQTT 3.1.1 and 5 packet sequences of every packet type,
 * and requests to every HTTP route (`shared/http-api.ts`). `campaign.ts` runs them against a
 * real broker.
 *
 * Names the fuzzer may use are drawn from small pools (so generated traffic registers,
 * subscribes, produces and manages things for real) that never contain the invariant clients'
 * names, realm or tokens: a generated input may do anything a hostile client can, but it
 * cannot accidentally be the bystander whose service the campaign checks.
 */
import fc from 'fast-check';
import { generate, type Packet } from 'mqtt-packet';
import { COMMANDS } from '../../../broker/admin/management-commands';
import { SignedAction, type SignedActionName } from '../../../shared/admin-signature';
import { dlqPath, HttpPath } from '../../../shared/http-api';
import { ClientEvent, Protocol, type ClientEventName } from '../../../shared/protocol-events';
import { BAD_JSON_TEXT, NOT_A_STRING, prng, protoKeyObjects, WRONG_JSON_TEXT } from '../fuzz';
import { packet, str, u16 } from '../mqtt-bytes';
import { mqtt5FuzzSequence } from '../mqtt5-fuzz';

/** Key a prototype-pollution attempt sets; the campaign checks `Object.prototype` for it. */
export const POLLUTION_KEY = 'fz_polluted';

/** The fuzz realm (auth on): a manager key, a pre-shared key, tokens of its own. */
export const FUZZ_REALM = 'fz';
/** Secrets the fuzzer may present (auth on); the invariant clients' token is not among them. */
export const FuzzSecrets = {
  ADMIN: 'fuzz-admin-token-5b1f0c8e9d2a47c3b6e1f0a9d8c7b6a5',
  REALM_TOKEN: 'fuzz-realm-token-0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  REALM_CONSUMER_TOKEN: 'fuzz-consumer-token-a1b2c3d4e5f60718293a4b5c6d7e8f90',
  MANAGER_KEY: 'fuzz-manager-key-11223344556677889900aabbccddeeff',
  PSK: 'fuzz-psk-99887766554433221100ffeeddccbbaa',
  MANAGEMENT_TOKEN: 'fuzz-mgmt-token-c0ffee00c0ffee00c0ffee00c0ffee00',
  JWT_SECRET: 'fuzz-jwt-secret-7d3f9a1c5e8b2d4f6a0c9e7b5d3f1a8c6e4b2d0f',
} as const;

/** Commands a valid admin proof is never generated for: they legitimately change what the
 * campaign's invariants rely on (auth on/off, the storage backend, outbound validator URLs), or
 * write files on the host (`backup_store`: a generated `dest_dir` such as `/` must never get a
 * copy). They still get every refused proof (unsigned, wrong key, stale, tampered, replayed). */
export const ADMIN_ONLY_WITH_BAD_PROOF = new Set([
  'set_global_auth',
  'set_persistence',
  'set_external_auth',
  'backup_store',
]);

export const COMMAND_NAMES = Object.keys(COMMANDS);

// ---------------------------------------------------------------------------------------------
// Hostile values

const LONE_SURROGATES = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'a\uD800b', '\uDC00\uD800'];
const EDGE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'nul\u0000inside',
  ...LONE_SURROGATES,
  '\uFEFF',
  '\u202Eevil',
  '\u200B',
  'é',
  'e\u0301',
  '😀',
  '\u{10FFFF}',
  '\r\n',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '#',
  '+',
  '+/#',
  '$SYS/x',
  '$share/g/t',
  Protocol.ALL_PUBLISHERS,
  Protocol.EVENT_ALL,
  '*',
  '../../etc/passwd',
  '%2e%2e%2f',
  '%ZZ',
  '<script>alert(1)</script>',
  "'; DROP TABLE messages;--",
  'CONSUME-x',
  Protocol.DEFAULT_REALM,
  'null',
  'undefined',
  'NaN',
];

/** Any UTF-16 code unit, lone surrogates included (fast-check's own units never make those). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

export const edgeString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: codeUnit, maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** Very large strings, rare: past MAX_NAME_LENGTH, past the chunk size, near socket.io's cap. */
const hugeString = fc
  .constantFrom(1_025, 4_097, 70_000, 262_145, 900_000)
  .chain((n) =>
    fc.constantFrom('x', 'é', '\uD800', '😀').map((c) => c.repeat(Math.ceil(n / c.length))),
  );

function nest(depth: number, leaf: unknown, asArray: boolean): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { n: v };
  return v;
}

/** Sets an own enumerable property, even `__proto__` (plain assignment would set the prototype). */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

const pollution = fc.constantFrom(
  ...protoKeyObjects(),
  JSON.parse(`{"__proto__":{"${POLLUTION_KEY}":"yes"}}`) as unknown,
  JSON.parse(`{"constructor":{"prototype":{"${POLLUTION_KEY}":"yes"}}}`) as unknown,
);

const objectKey = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'event', 'name'),
  },
  { weight: 2, arbitrary: edgeString },
);

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NOT_A_STRING) },
  { weight: 3, arbitrary: edgeString },
  { weight: 1, arbitrary: fc.double() }, // NaN, ±Infinity, -0 (JSON turns them into null)
  {
    weight: 1,
    arbitrary: fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -(2 ** 31), 2 ** 32, 1e-320),
  },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_JSON_TEXT, ...WRONG_JSON_TEXT) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 32 }).map((b) => Buffer.from(b)) },
);

const tree = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.array(fc.tuple(objectKey, tie('node')), { maxLength: 4 }).map((pairs) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of pairs) setOwn(o, k, v);
      return o;
    }),
  ),
})).node;

/** A value of the wrong type, shape or size for whatever field it lands in. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: leaf },
  { weight: 4, arbitrary: tree },
  { weight: 2, arbitrary: pollution },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 64, max: 2_500 }), fc.boolean())
      .map(([d, arr]) => nest(d, 'deep', arr)),
  },
  { weight: 1, arbitrary: hugeString },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => {
      const o: Record<string, number> = {};
      for (let i = 0; i < n; i++) o[`k${i}`] = i;
      return o;
    }),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000, max: 50_000 }).map((n) => new Array<number>(n).fill(7)),
  },
);

/** `valid` most of the time, otherwise a hostile value. */
export const mostly = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: hostile });

/**
 * A payload built from `fields`: each field valid, hostile or missing; sometimes extra fields
 * (prototype keys included); sent as an object, as JSON text (C#/Python clients, §1.2), wrapped
 * in an array, or replaced by a hostile value altogether.
 */
export function nearValid(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const entries = Object.entries(fields).map(([key, valid]) =>
    fc.oneof(
      { weight: 7, arbitrary: valid.map((v) => ({ key, v, drop: false })) },
      { weight: 2, arbitrary: hostile.map((v) => ({ key, v, drop: false })) },
      { weight: 1, arbitrary: fc.constant({ key, v: undefined as unknown, drop: true }) },
    ),
  );
  const extras = fc.array(fc.tuple(objectKey, hostile), { maxLength: 2 });
  const wrap = fc.constantFrom('object', 'object', 'object', 'object', 'json', 'array', 'hostile');
  return fc.tuple(fc.tuple(...entries), extras, wrap, hostile).map(([fs, extra, how, bad]) => {
    const o: Record<string, unknown> = {};
    for (const f of fs) if (!f.drop) setOwn(o, f.key, f.v);
    for (const [k, v] of extra) setOwn(o, k, v);
    switch (how) {
      case 'json':
        try {
          return JSON.stringify(o);
        } catch {
          return o;
        }
      case 'array':
        return [o];
      case 'hostile':
        return bad;
      default:
        return o;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Name pools (never the invariant clients' names)

export const producerName = fc.constantFrom('fz-p', 'fz-p2', 'FZ-P', Protocol.ALL_PUBLISHERS);
export const consumerName = fc.constantFrom('fz-c', 'fz-c2', 'fz-c3');
export const eventName = fc.constantFrom(
  'fz-e',
  'job',
  'a/b',
  'a/#',
  '+/b',
  Protocol.EVENT_ALL,
  '#',
);
export const realmName = fc.constantFrom(FUZZ_REALM, 'fz-2', 'fz-new', Protocol.DEFAULT_REALM, '*');
const bool = fc.boolean();
const smallMessage = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.constant({ k: [1, 2] }),
);

/** A token-ish string: ours (auth on), garbage, or a JWT that must not verify. */
const tokenLike = fc.oneof(
  fc.constantFrom(FuzzSecrets.REALM_TOKEN, FuzzSecrets.REALM_CONSUMER_TOKEN, FuzzSecrets.ADMIN),
  fc.constantFrom(
    // alg none, a wrong-secret HS256, absurd exp / duplicate claims as text
    'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJyZWFsbSI6ImZ6Iiwicm9sZSI6ImFkbWluIn0.',
    'eyJhbGciOiJIUzI1NiJ9.eyJyZWFsbSI6ImZ6IiwiZXhwIjoxZTQwMH0.c2lnbmF0dXJl',
    'eyJhbGciOiJSUzI1NiJ9.eyJyZWFsbSI6IioiLCJyb2xlIjoiYWRtaW4ifQ.AAAA',
    'a.b.c',
    '...',
  ),
  edgeString,
);

// ---------------------------------------------------------------------------------------------
// socket.io events

/** Payload arbitraries per inbound event that is not proof-gated. */
export const EVENT_PAYLOADS: Record<
  Exclude<ClientEventName, SignedActionName>,
  fc.Arbitrary<unknown>
> = {
  [ClientEvent.AUTHENTICATION]: nearValid({
    token: tokenLike,
    realm: fc.oneof(realmName, fc.constant('inv')),
    role: fc.constantFrom('consumer', 'producer', 'both', 'admin', 'manager'),
    key: fc.constantFrom(FuzzSecrets.PSK, 'wrong-key'),
  }),
  [ClientEvent.CONSUMER]: nearValid({
    name: consumerName,
    id: consumerName,
    consumer_id: consumerName,
  }),
  [ClientEvent.PRODUCER]: nearValid({ name: producerName, id: producerName }),
  [ClientEvent.SUBSCRIBE]: nearValid({
    event: fc.oneof(
      eventName,
      eventName.map((event) => ({ event })),
    ),
    producer: producerName,
    consumer: consumerName,
    consumer_id: consumerName,
    scope: fc.constantFrom(Protocol.SCOPE_DEFAULT, Protocol.SCOPE_ALL),
    durable: bool,
    ack: bool,
    manual_ack: bool,
    ack_timeout: fc.constantFrom(10, '50ms', '1s', 0, -1, '1e9h'),
    retry: nearValid({
      max_attempts: fc.integer({ min: -1, max: 5 }),
      backoff: fc.constantFrom('fixed', 'exponential'),
    }),
    mode: fc.constantFrom('topic', 'exact'),
    group: fc.constantFrom('g1', 'g2'),
  }),
  [ClientEvent.UNSUBSCRIBE]: nearValid({
    event: eventName,
    producer: producerName,
    consumer: consumerName,
  }),
  [ClientEvent.PRODUCE]: nearValid({
    event: fc.oneof(
      eventName,
      eventName.map((event) => ({ event })),
    ),
    message: smallMessage,
    from: producerName,
    method: fc.constantFrom('broadcast', 'unicast'),
    broadcast: fc.constantFrom('realm', 'group'),
    group: fc.constantFrom('g1', 'g2'),
    guaranteed: bool,
    durable: bool,
    ttl: fc.constantFrom(1, 1000, 0, -5, 1e12),
    to: consumerName,
    enc: fc.constantFrom('aes', { alg: 'x' }),
    contentType: fc.constantFrom('application/json', 'text/plain'),
  }),
  [ClientEvent.PRODUCE_CHUNK]: nearValid({
    transferId: fc.constantFrom('fz-t1', 'fz-t2', '__proto__'),
    index: fc.integer({ min: 0, max: 4 }),
    total: fc.integer({ min: 1, max: 5 }),
    data: fc.constantFrom('{"event":"fz-e","message":1,', '"from":"fz-p"}', '', '{'),
  }),
  [ClientEvent.ACK]: nearValid({ msgId: edgeString, msg_id: edgeString, id: edgeString }),
  [ClientEvent.PING]: nearValid({ seq: fc.integer(), sync: bool }),
  [ClientEvent.HELLO]: nearValid({
    type: fc.constantFrom('js', 'python', 'x'.repeat(65)),
    version: edgeString,
  }),
  [ClientEvent.DEBUG]: hostile,
  [ClientEvent.QUIT]: hostile,
  [ClientEvent.AUTHORIZATION_REQUEST]: nearValid({
    client_id: fc.constantFrom('fz-client', 'fz-client-2', '__proto__'),
    client_name: edgeString,
    realm: realmName,
    role: fc.constantFrom('consumer', 'producer', 'both', 'admin'),
    reason: edgeString,
  }),
  [ClientEvent.REMOTE_TICKET_REQUEST]: nearValid({
    realm: realmName,
    token: tokenLike,
    key: edgeString,
  }),
  [ClientEvent.KEY_PUBLISH]: nearValid({
    identity: fc.oneof(consumerName, producerName, fc.constantFrom('__proto__', 'constructor')),
    key_id: fc.oneof(edgeString, fc.integer()),
    alg: edgeString,
    public_key: fc.oneof(edgeString, fc.constant('x'.repeat(4097))),
  }),
  [ClientEvent.KEY_LOOKUP]: nearValid({
    identity: fc.oneof(consumerName, producerName, fc.constantFrom('__proto__', 'constructor')),
  }),
  [ClientEvent.PREKEY_PUBLISH]: nearValid({
    identity: fc.oneof(consumerName, producerName, fc.constantFrom('__proto__', 'constructor')),
    identity_key: edgeString,
    signed_prekey: edgeString,
    signed_prekey_sig: edgeString,
    kyber_prekey: fc.oneof(edgeString, fc.constant('x'.repeat(4097))),
    kyber_prekey_sig: edgeString,
    device_id: fc.oneof(fc.integer(), edgeString),
    one_time_prekeys: fc.oneof(
      fc.array(nearValid({ id: fc.oneof(fc.integer(), edgeString), key: edgeString }), {
        maxLength: 3,
      }),
      edgeString,
    ),
  }),
  [ClientEvent.PREKEY_TAKE]: nearValid({
    identity: fc.oneof(consumerName, producerName, fc.constantFrom('__proto__', 'constructor')),
  }),
  [ClientEvent.SEALED_CERT_REQUEST]: nearValid({
    identity: fc.oneof(consumerName, producerName, fc.constantFrom('__proto__', 'constructor')),
    identity_key: fc.oneof(edgeString, fc.constant('BQ' + 'A'.repeat(42))),
    device_id: fc.oneof(fc.integer(), edgeString),
  }),
  [ClientEvent.SEALED_UAK_SET]: nearValid({
    identity: fc.oneof(consumerName, producerName, fc.constantFrom('__proto__', 'constructor')),
    mode: fc.constantFrom('require-uak', 'unrestricted', 'bogus', null),
    uak: fc.oneof(edgeString, fc.constant('BwcHBwcHBwcHBwcHBwcHBw==')),
  }),
  [ClientEvent.SEALED_DELIVER]: nearValid({
    to: fc.record({ realm: realmName, identity: fc.oneof(consumerName, edgeString) }),
    uak: edgeString,
    blob: fc.oneof(edgeString, fc.constant('A'.repeat(87_390))),
    msg_id: fc.oneof(edgeString, fc.constant(null)),
  }),
  [ClientEvent.SEALED_SUBSCRIBE]: nearValid({
    identity: fc.oneof(consumerName, producerName, fc.constantFrom('__proto__', 'constructor')),
  }),
  [ClientEvent.PUSH_REGISTER]: nearValid({
    identity: fc.oneof(consumerName, producerName, fc.constantFrom('__proto__', 'constructor')),
    transport: fc.constantFrom('null', 'unifiedpush', 'fcm', 'apns', '__proto__', 'telepathy'),
    token: fc.oneof(edgeString, fc.constant('https://169.254.169.254/x')),
    app_id: fc.oneof(edgeString, fc.constant(null)),
  }),
  [ClientEvent.PUSH_UNREGISTER]: nearValid({
    identity: fc.oneof(consumerName, producerName),
    transport: edgeString,
    token: edgeString,
  }),
};

// ---------------------------------------------------------------------------------------------
// Signed envelopes (AUTH_MANAGEMENT_COMMAND, AUTHORIZATION_NEXT, AUTHORIZATION_DECIDE)

export type ProofSecret = 'admin' | 'realm-manager' | 'wrong' | 'psk';
export type ProofTamper =
  | 'none'
  | 'signature'
  | 'stale'
  | 'future'
  | 'hex-timestamp'
  | 'padded-timestamp'
  | 'fractional-timestamp'
  | 'replay'
  | 'no-proof'
  | 'hostile-proof'
  | 'unsigned-body'
  | 'hostile-envelope';

export interface EnvelopeSpec {
  secret: ProofSecret;
  tamper: ProofTamper;
  body: Record<string, unknown>;
  hostile: unknown;
}

const commandBody = fc
  .tuple(
    fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom(...COMMAND_NAMES) },
      { weight: 1, arbitrary: edgeString },
    ),
    fc.record(
      {
        realm: mostly(realmName),
        from: mostly(realmName),
        to: mostly(fc.constantFrom('fz-renamed', 'fz-2', Protocol.DEFAULT_REALM)),
        required: mostly(bool),
        key: mostly(fc.constantFrom('fz-new-psk-00000000000000000000')),
        manager_key: mostly(fc.constantFrom('fz-new-mk-000000000000000000000')),
        require_acceptance: mostly(bool),
        e2ee: mostly(fc.constantFrom('opportunistic', 'required', 'off')),
        ttl: mostly(fc.constantFrom(60, '1h', '5m', 0, -1)),
        token: mostly(fc.constantFrom('fz-issued-token-0000000000000000', FuzzSecrets.REALM_TOKEN)),
        token_hash: mostly(edgeString),
        realm_prefix: mostly(fc.constantFrom('fz-', '', '*')),
        consumer: mostly(consumerName),
        consumer_id: mostly(consumerName),
        ids: mostly(fc.array(edgeString, { maxLength: 3 })),
        limit: mostly(fc.integer({ min: -5, max: 1000 })),
        cursor: mostly(edgeString),
        all: mostly(bool),
      },
      { requiredKeys: [] },
    ),
    fc.array(fc.tuple(objectKey, hostile), { maxLength: 2 }),
  )
  .map(([command, fields, extra]) => {
    const body: Record<string, unknown> = { command, ...fields };
    for (const [k, v] of extra) setOwn(body, k, v);
    return body;
  });

const decideBody = fc.record(
  {
    realm: mostly(realmName),
    request_id: mostly(fc.constantFrom('fz-client', '0', 'nope')),
    client_id: mostly(fc.constantFrom('fz-client', 'fz-client-2')),
    decision: mostly(fc.constantFrom('approve', 'reject', 'maybe')),
    approve: mostly(bool),
    role: mostly(fc.constantFrom('consumer', 'producer', 'both', 'admin')),
  },
  { requiredKeys: [] },
);
const nextBody = fc.record({ realm: mostly(realmName) }, { requiredKeys: [] });

const tamper = fc.constantFrom<ProofTamper>(
  'none',
  'none',
  'none',
  'signature',
  'stale',
  'future',
  'hex-timestamp',
  'padded-timestamp',
  'fractional-timestamp',
  'replay',
  'no-proof',
  'hostile-proof',
  'unsigned-body',
  'hostile-envelope',
);

export function envelopeSpec(action: SignedActionName): fc.Arbitrary<EnvelopeSpec> {
  const body: fc.Arbitrary<Record<string, unknown>> =
    action === SignedAction.AUTH_MANAGEMENT_COMMAND
      ? commandBody
      : action === SignedAction.AUTHORIZATION_DECIDE
        ? decideBody
        : nextBody;
  return fc
    .record({
      secret: fc.constantFrom<ProofSecret>('admin', 'admin', 'realm-manager', 'wrong', 'psk'),
      tamper,
      body,
      hostile,
    })
    .map((spec) => {
      // A valid admin proof on a command that would switch auth or storage: refuse it instead.
      const cmd = spec.body.command;
      if (
        typeof cmd === 'string' &&
        ADMIN_ONLY_WITH_BAD_PROOF.has(cmd) &&
        spec.secret === 'admin'
      ) {
        return { ...spec, secret: 'wrong' as const };
      }
      return spec;
    });
}

// ---------------------------------------------------------------------------------------------
// MQTT

/** A raw MQTT 3.1.1 CONNECT (hostile client id / credentials) then packets of every type. */
function mqtt311Sequence(random: () => number): Buffer[] {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const clientId = pick(['fz-m', '', '__proto__', 'inv\u0000x', '\uD800', 'x'.repeat(300)]);
  const user = pick([null, FuzzSecrets.REALM_TOKEN, 'fz', '\uD800', '']);
  const pass = pick([null, FuzzSecrets.REALM_TOKEN, FuzzSecrets.PSK, 'nope']);
  let flags = 0x02; // clean session
  const payload = [str(clientId)];
  if (user !== null) {
    flags |= 0x80;
    payload.push(str(user));
  }
  if (pass !== null) {
    flags |= 0x40;
    payload.push(str(pass));
  }
  if (random() < 0.1) flags |= 0x01; // reserved bit: a protocol violation
  const out = [
    packet(
      0x10,
      Buffer.concat([
        str('MQTT'),
        Buffer.from([pick([4, 3, 5, 0, 255]), flags]),
        u16(int(120)),
        ...payload,
      ]),
    ),
  ];
  const topics = ['fz/t', 'a/+', '#', '', '$SYS/#', '\uD800', 'x/'.repeat(200)];
  for (let i = 0, n = 1 + int(6); i < n; i++) {
    const type = 1 + int(15); // every control packet type, reserved 0/15 included via type 15
    switch (type) {
      case 3: // PUBLISH
        out.push(
          packet(
            0x30 | (int(4) << 1) | int(2),
            Buffer.concat([str(pick(topics)), u16(1 + int(5)), Buffer.from('m')]),
          ),
        );
        break;
      case 8: // SUBSCRIBE
        out.push(
          packet(0x82, Buffer.concat([u16(1 + int(5)), str(pick(topics)), Buffer.from([int(4)])])),
        );
        break;
      case 10: // UNSUBSCRIBE
        out.push(packet(0xa2, Buffer.concat([u16(1 + int(5)), str(pick(topics))])));
        break;
      default: {
        const body = Buffer.from(Array.from({ length: int(8) }, () => int(256)));
        out.push(packet((type << 4) | int(16), body));
      }
    }
  }
  if (random() < 0.1) out.push(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff])); // bad remaining length
  return out;
}

/** An MQTT 5 CONNECT with credentials, so the fuzz sequence after it is processed (auth on). */
function mqtt5Connect(random: () => number): Buffer {
  const p: Packet = {
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 5,
    clean: true,
    clientId: `fz-m5-${Math.floor(random() * 4)}`,
    keepalive: 30,
    username: random() < 0.5 ? FUZZ_REALM : FuzzSecrets.REALM_TOKEN,
    password: Buffer.from(random() < 0.5 ? FuzzSecrets.REALM_TOKEN : 'wrong'),
  };
  return generate(p, { protocolVersion: 5 });
}

/** One MQTT connection's bytes: MQTT 5 (mqtt5-fuzz.ts, maybe with credentials) or raw 3.1.1. */
export const mqttConnection: fc.Arbitrary<Buffer[]> = fc
  .tuple(fc.integer(), fc.constantFrom('v5', 'v5-creds', 'v311'))
  .map(([seed, kind]) => {
    const random = prng(seed);
    if (kind === 'v311') return mqtt311Sequence(random);
    const seq = mqtt5FuzzSequence(random);
    if (kind === 'v5-creds') seq[0] = mqtt5Connect(random);
    return seq;
  });

// ---------------------------------------------------------------------------------------------
// HTTP

export interface HttpSpec {
  method: string;
  path: string;
  authorization: 'none' | 'admin' | 'management' | 'garbage' | 'basic';
  origin: 'none' | 'self' | 'loopback' | 'evil' | 'null' | 'hostile';
  host: 'self' | 'evil' | 'localhost';
  forwardedFor: string | null;
  contentType: string | null;
  body: string | null;
}

const pathSegment = fc.oneof(realmName, edgeString).map((s) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80'; // a lone surrogate cannot be URI-encoded: its raw UTF-8 bytes instead
  }
});
const queryValue = fc.oneof(fc.constantFrom('10', '0', '-1', '1e9', 'abc', ''), pathSegment);

const httpPath = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...Object.values(HttpPath), '/api/realms') },
  { weight: 3, arbitrary: pathSegment.map((r) => `/api/realms/${r}/dlq`) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(realmName, queryValue, queryValue)
      .map(([r, l, c]) => `${dlqPath(r)}?limit=${l}&cursor=${c}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '/',
      '/nope',
      '//api/stats',
      '/api/stats/',
      '/API/STATS',
      '/api/realms/%ZZ/dlq',
      '/api/realms/..%2f..%2fetc/dlq',
      '/api/realms//dlq',
      '/health?x=%00',
      '/socket.io/?EIO=4&transport=polling&j=0',
      '/socket.io/?EIO=3&transport=polling&j=1',
      '/socket.io/?EIO=4&transport=polling',
      `/api/${'a/'.repeat(2_000)}`,
      '/remote/?EIO=4&transport=polling',
    ),
  },
);

const provisioningBody = nearValid({
  realm: fc.constantFrom('fz-prov', 'fz-prov-2', 'other', '__proto__'),
  manager_key: fc.constantFrom('fz-prov-mk-0000000000000000000000'),
  ttl: fc.constantFrom('1h', 60, 0, '2 days'),
  ephemeral: bool,
}).map((b) => (typeof b === 'string' ? b : (JSON.stringify(b) ?? 'null')));

export const httpRequest: fc.Arbitrary<HttpSpec> = fc.record({
  method: fc.constantFrom(
    'GET',
    'GET',
    'GET',
    'POST',
    'POST',
    'PUT',
    'DELETE',
    'OPTIONS',
    'HEAD',
    'PATCH',
  ),
  path: httpPath,
  authorization: fc.constantFrom('none', 'admin', 'admin', 'management', 'garbage', 'basic'),
  origin: fc.constantFrom('none', 'none', 'self', 'loopback', 'evil', 'null', 'hostile'),
  host: fc.constantFrom('self', 'self', 'self', 'evil', 'localhost'),
  forwardedFor: fc.option(fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'garbage', '127.0.0.1'), {
    nil: null,
  }),
  contentType: fc.option(
    fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-16'),
    {
      nil: null,
    },
  ),
  body: fc.option(
    fc.oneof(
      { weight: 6, arbitrary: provisioningBody },
      { weight: 2, arbitrary: fc.constantFrom(...BAD_JSON_TEXT, ...WRONG_JSON_TEXT) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(70_000, 1_100_000).map((n) => `{"realm":"${'r'.repeat(n)}"}`),
      },
    ),
    { nil: null },
  ),
});

// ---------------------------------------------------------------------------------------------
// Actions

/** Sockets per campaign the fuzzer drives (some authenticated, some never). */
export const FUZZ_SOCKETS = 6;

export type FuzzAction =
  | { kind: 'emit'; socket: number; event: string; args: unknown[]; ack: boolean }
  | { kind: 'signed'; socket: number; event: SignedActionName; spec: EnvelopeSpec; ack: boolean }
  | { kind: 'http'; spec: HttpSpec }
  | { kind: 'mqtt'; packets: Buffer[] }
  | { kind: 'reconnect'; socket: number };

const socketIndex = fc.integer({ min: 0, max: FUZZ_SOCKETS - 1 });
const plainEvents = Object.keys(EVENT_PAYLOADS) as (keyof typeof EVENT_PAYLOADS)[];

const emitAction: fc.Arbitrary<FuzzAction> = fc
  .tuple(
    socketIndex,
    fc.constantFrom(...plainEvents).chain((event) =>
      fc.tuple(
        fc.constant(event as string),
        fc.oneof(
          { weight: 8, arbitrary: EVENT_PAYLOADS[event].map((p) => [p]) },
          { weight: 1, arbitrary: fc.constant<unknown[]>([]) }, // no argument
          { weight: 1, arbitrary: fc.tuple(EVENT_PAYLOADS[event], hostile, hostile) }, // extra args
        ),
      ),
    ),
    fc.boolean(),
  )
  .map(([socket, [event, args], ack]): FuzzAction => ({
    kind: 'emit',
    socket,
    event,
    args: [...args],
    ack,
  }));

/** Events the broker does not know: it must ignore them. */
const unknownEmit: fc.Arbitrary<FuzzAction> = fc
  .tuple(
    socketIndex,
    fc.oneof(
      fc.constantFrom(
        'produce',
        'CONSUME-x',
        'connect',
        'disconnecting',
        'error',
        'newListener',
        '__proto__',
        'constructor',
        'toString',
      ),
      edgeString,
    ),
    hostile,
  )
  .map(([socket, event, arg]) => ({ kind: 'emit', socket, event, args: [arg], ack: false }));

const signedAction: fc.Arbitrary<FuzzAction> = fc
  .constantFrom(...Object.values(SignedAction))
  .chain((event) =>
    fc
      .tuple(socketIndex, envelopeSpec(event), fc.boolean())
      .map(([socket, spec, ack]): FuzzAction => ({ kind: 'signed', socket, event, spec, ack })),
  );

export const fuzzAction: fc.Arbitrary<FuzzAction> = fc.oneof(
  { weight: 30, arbitrary: emitAction },
  { weight: 2, arbitrary: unknownEmit },
  { weight: 10, arbitrary: signedAction },
  { weight: 4, arbitrary: httpRequest.map((spec): FuzzAction => ({ kind: 'http', spec })) },
  {
    weight: 2,
    arbitrary: mqttConnection.map((packets): FuzzAction => ({ kind: 'mqtt', packets })),
  },
  {
    weight: 1,
    arbitrary: socketIndex.map((socket): FuzzAction => ({ kind: 'reconnect', socket })),
  },
);

/** How many "events" an action counts for in the campaign's total (MQTT: its packets). */
export function eventCount(a: FuzzAction): number {
  return a.kind === 'mqtt' ? a.packets.length : 1;
}
