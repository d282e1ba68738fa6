/**
 * Whether a host (an address or name as given to `listen` or found in a `Host` header, without
 * port) is loopback: `localhost`, `127.0.0.0/8`, `::1` (also bracketed or IPv4-mapped).
 * Used by the broker (Host checks, the open-broker warning) and the console (its bind check).
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return (
    name === 'localhost' ||
    name === '::1' ||
    name === '0:0:0:0:0:0:0:1' ||
    /^127(\.\d{1,3}){3}$/.test(name) ||
    /^::ffff:127(\.\d{1,3}){3}$/.test(name)
  );
}
