/**
 * The SSRF guard of `unifiedpush` endpoints (`spec/protocol-extensions.md` §6.8.2,
 * `isSafePushUrl`), with Note 6-C's Fix: every range that is not globally routable is blocked
 * (CGNAT, documentation, benchmarking, multicast, reserved, Teredo, `2001:db8::/32`).
 *
 * Applied at registration, again before each send, and on the connection's own DNS lookup
 * (`guardedLookup`), which defends against DNS rebinding between the check and the connect.
 * Reasons are token-free strings; callers never log the URL.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { ExtensionLimit } from '../../../shared/protocol-extensions';

export type AddressClass = 'ok' | 'loopback' | 'blocked';

/** Resolves a host name to all its addresses. */
export type Resolve = (host: string) => Promise<string[]>;

export const defaultResolve: Resolve = async (host) =>
  (await dnsLookupAsync(host, { all: true, verbatim: true })).map((a) => a.address);

export type GuardResult = { ok: true; url: URL } | { ok: false; reason: string };

const CANONICAL_V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** [network, prefix length] of the IPv4 ranges that are blocked (§6.8.2 table and Note 6-C). */
const BLOCKED_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

function v4ToInt(bytes: readonly number[]): number {
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

function classifyV4Bytes(bytes: readonly number[]): AddressClass {
  if (bytes[0] === 127) return 'loopback';
  const n = v4ToInt(bytes);
  for (const [net, len] of BLOCKED_V4) {
    const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
    if ((n & mask) >>> 0 === (v4ToInt(net.split('.').map(Number)) & mask) >>> 0) return 'blocked';
  }
  return 'ok';
}

/** The 16 bytes of an IPv6 address (zone id dropped, trailing dotted IPv4 folded), or null. */
export function parseIPv6(input: string): number[] | null {
  let text = input.split('%')[0]!;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const v4 = text.slice(lastColon + 1);
  if (v4.includes('.')) {
    if (!CANONICAL_V4.test(v4)) return null;
    const b = v4.split('.').map(Number);
    tail.push(b[0]!, b[1]!, b[2]!, b[3]!);
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    const out: number[] = [];
    for (const g of groups) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !rest) return null;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [
    ...head,
    ...new Array<number>(halves.length === 2 ? missing : 0).fill(0),
    ...rest,
  ];
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

function classifyV6(bytes: readonly number[]): AddressClass {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zero(0, 15) && bytes[15] === 1) return 'loopback';
  if (zero(0, 16)) return 'blocked';
  // ::ffff:a.b.c.d (mapped)
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff)
    return classifyV4Bytes(bytes.slice(12));
  // 64:ff9b::/96 (NAT64)
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12))
    return classifyV4Bytes(bytes.slice(12));
  // 2002::/16 (6to4): the embedded IPv4 is bytes 2–5
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return classifyV4Bytes(bytes.slice(2, 6));
  // ::a.b.c.d (IPv4-compatible)
  if (zero(0, 12)) return classifyV4Bytes(bytes.slice(12));
  // fc00::/7, fe80::/10
  if ((bytes[0]! & 0xfe) === 0xfc) return 'blocked';
  if (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80) return 'blocked';
  // Note 6-C: Teredo 2001::/32 and documentation 2001:db8::/32
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) return 'blocked';
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8)
    return 'blocked';
  if ((bytes[0]! & 0xe0) === 0x20) return 'ok';
  return 'blocked';
}

/** §6.8.2 step 3: the class of one address; anything unparsable is blocked (fail closed). */
export function classifyAddress(address: string): AddressClass {
  const a = address.replace(/^\[|\]$/g, '');
  if (isIPv4(a))
    return CANONICAL_V4.test(a) ? classifyV4Bytes(a.split('.').map(Number)) : 'blocked';
  if (a.includes(':')) {
    const bytes = parseIPv6(a);
    return bytes ? classifyV6(bytes) : 'blocked';
  }
  return 'blocked';
}

/** Refusal reason of a set of addresses, or null when they may be connected to. */
function refuseAddresses(addresses: readonly string[], allowLocal: boolean, http: boolean) {
  const classes = addresses.map(classifyAddress);
  if (classes.includes('blocked')) return 'blocked-address';
  if (!allowLocal && classes.includes('loopback')) return 'loopback';
  if (http && classes.includes('ok')) return 'http-non-local';
  return null;
}

/**
 * §6.8.2 `isSafePushUrl`: whether `value` may be POSTed to. `allowLocal`: the
 * `TYO_MQ_PUSH_ALLOW_LOCAL` flag (loopback and `http:` to loopback permitted). `resolve`: DNS
 * (default: all addresses, verbatim). Never throws for a bad URL; a throwing `resolve` gives
 * `dns-failed`.
 */
export async function isSafePushUrl(
  value: unknown,
  allowLocal: boolean,
  resolve: Resolve = defaultResolve,
): Promise<GuardResult> {
  if (typeof value !== 'string' || value === '') return { ok: false, reason: 'empty' };
  if (value.length > ExtensionLimit.PUSH_MAX_TOKEN_LENGTH) return { ok: false, reason: 'too-long' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'invalid-url' };
  }
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'credentials-in-url' };
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, reason: 'bad-scheme' };
  const http = url.protocol === 'http:';
  if (http && !allowLocal) return { ok: false, reason: 'http-forbidden' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') return { ok: false, reason: 'no-host' };
  let addresses: string[];
  if (isIPv4(host) || isIPv6(host) || host.includes(':')) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, reason: 'dns-failed' };
    }
    if (addresses.length === 0) return { ok: false, reason: 'dns-empty' };
  }
  const refusal = refuseAddresses(addresses, allowLocal, http);
  return refusal ? { ok: false, reason: refusal } : { ok: true, url };
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * §6.8.2 step 4: a `lookup` for `http.request` that runs every resolved address through the
 * classifier, so a host that re-resolves to a private address between the check and the
 * connect is never connected to.
 */
export function guardedLookup(allowLocal: boolean, http: boolean) {
  return (hostname: string, options: LookupAllOptions | object, callback: LookupCallback) => {
    const all = (options as { all?: boolean }).all === true;
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (err, addrs) => {
      if (err) return callback(err, []);
      const refusal = refuseAddresses(
        addrs.map((a) => a.address),
        allowLocal,
        http,
      );
      if (refusal)
        return callback(
          Object.assign(new Error('push endpoint address refused'), { code: 'EPUSHUNSAFE' }),
          [],
        );
      if (all) return callback(null, addrs);
      return callback(null, addrs[0]!.address, addrs[0]!.family);
    });
  };
}
