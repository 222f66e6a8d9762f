import { BlockList, isIP } from 'node:net';

/**
 * Addresses the gateway's outbound calls (merchant callbacks, webhooks, report uploads) must not reach unless an
 * operator allows it: the gateway's own host, private networks, link-local (where cloud metadata services answer),
 * and ranges that are not public destinations at all. IPv4-mapped IPv6 addresses match their IPv4 range.
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (also a cloud metadata address: 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (a metadata address: 192.0.0.192)
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64 (wraps an IPv4 address)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (wraps an IPv4 address)
  ['fc00::', 7], // unique local (a metadata address: fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/**
 * `host` as a resolver reads it: an IP address in its usual spelling, else a name in lowercase; undefined when it is
 * neither. WHATWG URL host parsing, which reads IPv4 addresses as inet_aton does (the C library's resolver), so the
 * numeric spellings of an address are that address: `2130706433`, `0x7f000001`, `127.1` and `0177.0.0.1` are all
 * 127.0.0.1, and a name whose last label is a number is an address or nothing. An IPv6 address may come in brackets
 * (`[::1]`) and is given without them (`::ffff:127.0.0.1` as `::ffff:7f00:1`).
 */
export function canonicalHost(host: string): string | undefined {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  try {
    if (isIP(bare) === 6) return new URL(`ftp://[${bare}]/`).hostname.slice(1, -1);
    // Only what a name or an IPv4 address is made of: nothing the URL parser would read as a port, a user or a path.
    if (!/^[A-Za-z0-9.-]+$/.test(host)) return undefined;
    return new URL(`ftp://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

/** Whether `address` (an IP literal) is a public destination; anything that is not an IP is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
