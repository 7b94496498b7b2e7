/**
 * The address table, per IANA special-purpose range and per spelling of it:
 * plain, IPv4-mapped, NAT64 (64:ff9b::/96), IPv4-compatible (::a.b.c.d),
 * 6to4 and bracketed. Then what each operator allowance lets through.
 */
import { describe, expect, it } from "vitest";
import { classifyAddress, refusalOf, type AddressReach } from "../src/index.ts";

const table: Array<[address: string, reach: AddressReach]> = [
  ["0.0.0.0", "reserved"],
  ["0.1.2.3", "reserved"],
  ["10.0.0.1", "private"],
  ["100.64.0.1", "private"],
  ["100.127.255.254", "private"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "reserved"],
  ["192.31.196.1", "reserved"],
  ["192.52.193.1", "reserved"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["192.175.48.1", "reserved"],
  ["198.18.0.1", "private"],
  ["198.19.255.255", "private"],
  ["198.51.100.1", "reserved"],
  ["203.0.113.1", "reserved"],
  ["224.0.0.1", "reserved"],
  ["239.255.255.250", "reserved"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["::", "reserved"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["[::ffff:10.0.0.1]", "private"],
  ["::ffff:169.254.169.254", "private"],
  ["::ffff:198.18.0.1", "private"],
  ["::ffff:224.0.0.1", "reserved"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::a00:1", "private"],
  ["64:ff9b::c0a8:101", "private"],
  ["64:ff9b:1::1", "reserved"],
  ["::127.0.0.1", "reserved"],
  ["::7f00:1", "reserved"],
  ["::8.8.8.8", "reserved"],
  ["2002:7f00:1::", "loopback"],
  ["2002:a00:1::1", "private"],
  ["100::1", "reserved"],
  ["2001::1", "reserved"],
  ["2001:db8::1", "reserved"],
  ["3fff::1", "reserved"],
  ["5f00::1", "reserved"],
  ["fc00::1", "private"],
  ["fd12:3456::1", "private"],
  ["fe80::1", "private"],
  ["fe80::1%eth0", "private"],
  ["fec0::1", "private"],
  ["ff02::1", "reserved"],
  // Global unicast, including the same hosts wrapped in the forms that translate to them.
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["100.128.0.1", "public"],
  ["172.32.0.1", "public"],
  ["198.20.0.1", "public"],
  ["223.255.255.255", "public"],
  ["::ffff:8.8.8.8", "public"],
  ["64:ff9b::808:808", "public"],
  ["2002:808:808::1", "public"],
  ["2001:4860:4860::8888", "public"],
  ["2606:4700::1111", "public"],
];

describe("classifyAddress", () => {
  it.each(table)("%s is %s", (address, reach) => {
    expect(classifyAddress(address).reach).toBe(reach);
  });

  it("names the registry entry, and the wrapping form", () => {
    expect(classifyAddress("198.18.0.1").range).toBe("benchmarking 198.18.0.0/15");
    expect(classifyAddress("64:ff9b::7f00:1").range).toBe("NAT64 loopback 127.0.0.0/8");
    expect(classifyAddress("::ffff:10.1.2.3").range).toBe("IPv4-mapped private-use 10.0.0.0/8");
    expect(classifyAddress("::127.0.0.1").range).toBe("deprecated IPv4-compatible ::/96");
  });

  it("throws on a name", () => {
    expect(() => classifyAddress("localhost")).toThrow(/not an IP address/);
  });
});

describe("refusalOf: the operator's allowance", () => {
  it.each(table)("%s (%s)", (address, reach) => {
    const allowedUnder = {
      none: reach === "public",
      loopback: reach === "public" || reach === "loopback",
      private: reach !== "reserved",
    };
    for (const [allowance, allowed] of Object.entries(allowedUnder)) {
      const why = refusalOf(address, allowance as "none" | "loopback" | "private");
      expect(why === null, `${address} under ${allowance}: ${why}`).toBe(allowed);
    }
  });
});
