import { BlockList, isIP } from "node:net";

/**
 * Addresses a webhook must never reach unless the operator allows private
 * targets: they are this host, its network or the cloud metadata service (SSRF).
 */
const PRIVATE_IPV4: readonly [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // RFC 1918
  ["100.64.0.0", 10], // CGNAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // RFC 1918
  ["192.168.0.0", 16], // RFC 1918
];

const PRIVATE_IPV6: readonly [string, number][] = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
];

const blocked = new BlockList();
for (const [net, prefix] of PRIVATE_IPV4) {
  blocked.addSubnet(net, prefix, "ipv4");
  // The same ranges written as IPv4-mapped IPv6 (::ffff:127.0.0.1) reach the same hosts.
  blocked.addSubnet(`::ffff:${net}`, 96 + prefix, "ipv6");
}
for (const [net, prefix] of PRIVATE_IPV6) blocked.addSubnet(net, prefix, "ipv6");

/** True for a loopback, link-local, private, CGNAT, unspecified or ULA address; throws on a non-address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) throw new TypeError(`not an IP address: ${address}`);
  return blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}
