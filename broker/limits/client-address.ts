/**
 * The client address behind trusted proxies (`limits.trust_proxy`; `spec/protocol-admin.md`
 * §11.1 with its security note acted on). The reference takes the *first* `X-Forwarded-For`
 * entry whenever `trust_proxy` is true, so any client can name any address and get a fresh
 * per-IP bucket per request. Here:
 * - the header is read only when the TCP peer is a trusted proxy;
 * - the list is then walked from the right (the hop the trusted proxy appended) past every
 *   trusted hop, and the first untrusted hop is the client; entries further left were written
 *   by the client and are ignored;
 * - `trust_proxy: true` trusts loopback proxies only (127.0.0.0/8, ::1 and their IPv4-mapped
 *   forms): a reverse proxy on the same host. `false`/absent trusts none. A list (or one
 *   comma-separated string) names the proxies: addresses, CIDRs (`10.0.0.0/8`, `fd00::/8`) and
 *   the keywords `loopback`, `linklocal`, `uniquelocal` (as Express names them).
 */
import { BlockList, isIP } from 'node:net';

/** Client addresses used as bucket keys are cut to this length (a malformed hop, a hostname). */
export const MAX_ADDRESS_LENGTH = 64;

const KEYWORDS: Record<string, readonly string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** The `trust_proxy` value `true` means. */
export const TRUE_MEANS = ['loopback'] as const;

/** Who is trusted to report a client address: nobody, or the proxies in `list`. */
export interface ProxyTrust {
  /** Whether `address` (a TCP peer or a forwarded hop, already trimmed) is a trusted proxy. */
  trusts(address: string): boolean;
}

const NOBODY: ProxyTrust = { trusts: () => false };

/** The address of a hop without its port or brackets (`[::1]:80`, `1.2.3.4:5678`). */
export function bareAddress(hop: string): string {
  const s = hop.trim();
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    return end > 0 ? s.slice(1, end) : s;
  }
  const colon = s.indexOf(':');
  if (colon > 0 && s.indexOf(':', colon + 1) === -1 && isIP(s.slice(0, colon)) === 4) {
    return s.slice(0, colon);
  }
  return s;
}

/**
 * Why `entry` is not a valid `trust_proxy` list entry, or null when it is. Used by the settings
 * schema, so a typo is refused at start-up and on reload instead of trusting nobody silently.
 */
export function proxyEntryError(entry: string): string | null {
  const s = entry.trim().toLowerCase();
  if (s in KEYWORDS) return null;
  const slash = s.indexOf('/');
  const address = slash === -1 ? s : s.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return `"${entry}" is not an IP address, a CIDR or ${Object.keys(KEYWORDS)}`;
  if (slash === -1) return null;
  const bits = s.slice(slash + 1);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) {
    return `"${entry}" has a prefix length outside 0–${max}`;
  }
  return null;
}

/** The entries of a `trust_proxy` value: `true` ⇒ loopback, a string ⇒ its comma-separated parts. */
export function proxyEntries(value: unknown): string[] {
  if (value === true) return [...TRUE_MEANS];
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(value)) {
    return value.filter((v): v is string => typeof v === 'string').map((s) => s.trim());
  }
  return [];
}

/** A `ProxyTrust` for a `trust_proxy` value; invalid entries are skipped (the schema refuses them). */
export function proxyTrust(value: unknown): ProxyTrust {
  const entries = proxyEntries(value);
  if (entries.length === 0) return NOBODY;
  const list = new BlockList();
  const add = (entry: string) => {
    const slash = entry.indexOf('/');
    const address = slash === -1 ? entry : entry.slice(0, slash);
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (slash === -1) list.addAddress(address, type);
    else list.addSubnet(address, Number(entry.slice(slash + 1)), type);
  };
  for (const raw of entries) {
    if (proxyEntryError(raw) !== null) continue;
    const entry = raw.toLowerCase();
    for (const e of KEYWORDS[entry] ?? [entry]) add(e);
  }
  return {
    trusts(address: string): boolean {
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}

/**
 * The client address of a connection from `peer` carrying `forwarded` (the `X-Forwarded-For`
 * header, repeated headers as an array): `peer` unless it is a trusted proxy, else the right-most
 * untrusted hop (or the left-most hop when every hop is trusted). `"unknown"` without a peer.
 */
export function clientAddress(
  trust: ProxyTrust,
  forwarded: string | string[] | undefined,
  peer: string | undefined,
): string {
  if (!peer) return 'unknown';
  if (trust === NOBODY || forwarded === undefined || !trust.trusts(peer)) return peer;
  const header = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
  let client = peer;
  let end = header.length;
  while (end > 0) {
    const start = header.lastIndexOf(',', end - 1);
    const hop = bareAddress(header.slice(start + 1, end));
    end = start;
    if (hop === '') continue;
    client = hop.length > MAX_ADDRESS_LENGTH ? hop.slice(0, MAX_ADDRESS_LENGTH) : hop;
    if (!trust.trusts(hop)) break;
  }
  return client;
}
