import { describe, expect, it } from "vitest";
import { isPrivateAddress } from "../src/index.ts";

describe("isPrivateAddress", () => {
  it.each([
    ["0.0.0.0", "this network"],
    ["0.255.255.255", "this network, top"],
    ["10.0.0.1", "RFC 1918 10/8"],
    ["10.255.255.255", "RFC 1918 10/8, top"],
    ["172.16.0.1", "RFC 1918 172.16/12"],
    ["172.31.255.255", "RFC 1918 172.16/12, top"],
    ["192.168.1.1", "RFC 1918 192.168/16"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.255", "CGNAT, top"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback, top"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["::1", "IPv6 loopback"],
    ["::", "IPv6 unspecified"],
    ["fc00::1", "ULA fc00::/8"],
    ["fdff:ffff::1", "ULA fd00::/8"],
    ["fe80::1", "IPv6 link-local"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, hex form"],
    ["::ffff:10.1.2.3", "IPv4-mapped RFC 1918"],
    ["::ffff:169.254.169.254", "IPv4-mapped link-local"],
    ["::ffff:100.64.0.1", "IPv4-mapped CGNAT"],
  ])("%s (%s) is private", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    ["1.1.1.1"],
    ["8.8.8.8"],
    ["9.255.255.255"],
    ["11.0.0.0"],
    ["100.63.255.255"],
    ["100.128.0.0"],
    ["172.15.255.255"],
    ["172.32.0.0"],
    ["192.169.0.0"],
    ["169.253.255.255"],
    ["128.0.0.1"],
    ["2606:4700:4700::1111"],
    ["fbff::1"],
    ["fec0::1"],
    ["::ffff:8.8.8.8"],
  ])("%s is public", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it("a non-address is an error, not a silent pass", () => {
    expect(() => isPrivateAddress("localhost")).toThrow(/not an IP address/);
  });
});
