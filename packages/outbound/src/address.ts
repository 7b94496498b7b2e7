/**
 * What an IP address reaches, from the IANA special-purpose address
 * registries (IPv4 and IPv6). Only global unicast addresses are public; an
 * address wrapping an IPv4 one (IPv4-mapped, NAT64 64:ff9b::/96, 6to4) is
 * whatever the IPv4 address is, so no spelling of 127.0.0.1 passes as public.
 */
import { isIP } from "node:net";

/**
 * `public`: global unicast. `loopback`: this host. `private`: this host's networks (RFC 1918,
 * CGNAT, link-local including cloud metadata, unique local, benchmarking, which some proxies use
 * for fake-IP DNS). `reserved`: never a request target (unspecified, multicast, broadcast,
 * documentation, protocol assignments, deprecated forms).
 */
export type AddressReach = "public" | "loopback" | "private" | "reserved";

export interface AddressClass {
  reach: AddressReach;
  /** The registry entry that decided it, e.g. "loopback 127.0.0.0/8"; "global unicast" for public. */
  range: string;
}

type Range = readonly [net: string, prefix: number, reach: Exclude<AddressReach, "public">, name: string];

const IPV4_RANGES: readonly Range[] = [
  ["0.0.0.0", 8, "reserved", "this network"],
  ["10.0.0.0", 8, "private", "private-use"],
  ["100.64.0.0", 10, "private", "shared address space (CGNAT)"],
  ["127.0.0.0", 8, "loopback", "loopback"],
  ["169.254.0.0", 16, "private", "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private", "private-use"],
  ["192.0.0.0", 24, "reserved", "IETF protocol assignments"],
  ["192.0.2.0", 24, "reserved", "documentation (TEST-NET-1)"],
  ["192.31.196.0", 24, "reserved", "AS112-v4"],
  ["192.52.193.0", 24, "reserved", "AMT"],
  ["192.88.99.0", 24, "reserved", "deprecated 6to4 relay anycast"],
  ["192.168.0.0", 16, "private", "private-use"],
  ["192.175.48.0", 24, "reserved", "direct delegation AS112"],
  ["198.18.0.0", 15, "private", "benchmarking"],
  ["198.51.100.0", 24, "reserved", "documentation (TEST-NET-2)"],
  ["203.0.113.0", 24, "reserved", "documentation (TEST-NET-3)"],
  ["224.0.0.0", 4, "reserved", "multicast"],
  ["240.0.0.0", 4, "reserved", "reserved for future use"],
  ["255.255.255.255", 32, "reserved", "limited broadcast"],
];

/** IPv6 ranges; the three that embed an IPv4 address are handled before this table. */
const IPV6_RANGES: readonly Range[] = [
  ["::", 128, "reserved", "unspecified"],
  ["::1", 128, "loopback", "loopback"],
  ["::", 96, "reserved", "deprecated IPv4-compatible"],
  ["64:ff9b:1::", 48, "reserved", "local-use IPv4/IPv6 translation"],
  ["100::", 64, "reserved", "discard-only"],
  ["2001::", 23, "reserved", "IETF protocol assignments (Teredo, ORCHID, ...)"],
  ["2001:db8::", 32, "reserved", "documentation"],
  ["3fff::", 20, "reserved", "documentation"],
  ["5f00::", 16, "reserved", "segment routing (SRv6) SIDs"],
  ["fc00::", 7, "private", "unique local"],
  ["fe80::", 10, "private", "link-local"],
  ["fec0::", 10, "private", "deprecated site-local"],
  ["ff00::", 8, "reserved", "multicast"],
];

function ipv4ToInt(address: string): number {
  return address.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
}

function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
}

/** The 128 bits of an IPv6 address (any spelling Node accepts, including a dotted IPv4 tail). */
function ipv6ToBigInt(address: string): bigint {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4ToInt(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const headParts = head ? head.split(":") : [];
  const tailParts = tail === undefined ? [] : tail ? tail.split(":") : [];
  const zeros = tail === undefined ? 0 : 8 - headParts.length - tailParts.length;
  const parts = [...headParts, ...Array<string>(zeros).fill("0"), ...tailParts];
  return parts.reduce((n, part) => (n << 16n) | BigInt(parseInt(part, 16)), 0n);
}

function inRange4(value: number, net: string, prefix: number): boolean {
  const size = 2 ** (32 - prefix);
  return Math.floor(value / size) === Math.floor(ipv4ToInt(net) / size);
}

function inRange6(value: bigint, net: string, prefix: number): boolean {
  const shift = BigInt(128 - prefix);
  return value >> shift === ipv6ToBigInt(net) >> shift;
}

function classifyIpv4(address: string, wrapper = ""): AddressClass {
  const value = ipv4ToInt(address);
  for (const [net, prefix, reach, name] of IPV4_RANGES) {
    if (inRange4(value, net, prefix)) return { reach, range: `${wrapper}${name} ${net}/${prefix}` };
  }
  return { reach: "public", range: `${wrapper}global unicast` };
}

const V4_MAPPED = ipv6ToBigInt("::ffff:0:0") >> 32n;
const NAT64 = ipv6ToBigInt("64:ff9b::") >> 32n;
const SIX_TO_FOUR = ipv6ToBigInt("2002::") >> 112n;

function classifyIpv6(address: string): AddressClass {
  const value = ipv6ToBigInt(address);
  const low32 = intToIpv4(Number(value & 0xffffffffn));
  if (value >> 32n === V4_MAPPED) return classifyIpv4(low32, "IPv4-mapped ");
  if (value >> 32n === NAT64) return classifyIpv4(low32, "NAT64 ");
  if (value >> 112n === SIX_TO_FOUR) return classifyIpv4(intToIpv4(Number((value >> 80n) & 0xffffffffn)), "6to4 ");
  for (const [net, prefix, reach, name] of IPV6_RANGES) {
    if (inRange6(value, net, prefix)) return { reach, range: `${name} ${net}/${prefix}` };
  }
  return { reach: "public", range: "global unicast" };
}

/** Which registry entry an address falls in; throws on a string that is not an IP address. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""); // brackets of a URL host; an IPv6 zone id
  const family = isIP(bare);
  if (family === 4) return classifyIpv4(bare);
  if (family === 6) return classifyIpv6(bare);
  throw new TypeError(`not an IP address: ${address}`);
}

/**
 * Which non-public targets the operator allows (service environment, never a project key):
 * `none`, `loopback` (this host only: the embedded default, for a local model server or receiver),
 * or `private` (loopback and the private networks). Reserved addresses are never allowed.
 */
export type PrivateTargets = "none" | "loopback" | "private";

/** Why `address` may not be reached under `allowed`, or null when it may. */
export function refusalOf(address: string, allowed: PrivateTargets): string | null {
  const { reach, range } = classifyAddress(address);
  if (reach === "public") return null;
  if (reach === "loopback" && allowed !== "none") return null;
  if (reach === "private" && allowed === "private") return null;
  return reach === "reserved" ? `a reserved address (${range})` : `a ${reach} address (${range}), and this service does not allow ${reach} targets`;
}
