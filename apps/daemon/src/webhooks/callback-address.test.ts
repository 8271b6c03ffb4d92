import { describe, expect, it } from "vitest";
import { checkAddress, type RefusedRange } from "./callback-address.js";

const strict = { allowLocal: false };
const local = { allowLocal: true };

const rangeOf = (address: string, policy = strict) => {
  const verdict = checkAddress(address, policy);
  return verdict.ok ? "ok" : verdict.range;
};

describe("checkAddress", () => {
  const refusedIpv4: [string, RefusedRange][] = [
    ["0.0.0.0", "unspecified"],
    ["0.255.255.255", "unspecified"],
    ["10.0.0.0", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.0", "shared"],
    ["100.127.255.255", "shared"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "protocol-assignments"],
    ["192.0.2.10", "documentation"],
    ["192.88.99.1", "reserved"],
    ["192.168.0.1", "private"],
    ["192.168.255.255", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.200", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["254.1.2.3", "reserved"],
    ["255.255.255.255", "broadcast"],
  ];
  it.each(refusedIpv4)("refuses IPv4 %s as %s", (address, range) => {
    expect(rangeOf(address)).toBe(range);
  });

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.1",
    "192.0.3.1",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "93.184.216.34",
  ])("admits public IPv4 %s", (address) => {
    expect(rangeOf(address)).toBe("ok");
  });

  const refusedIpv6: [string, RefusedRange][] = [
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:127.0.0.1", "ipv4-mapped"],
    ["::ffff:8.8.8.8", "ipv4-mapped"],
    ["::ffff:7f00:1", "ipv4-mapped"],
    ["::127.0.0.1", "ipv4-compatible"],
    ["::8.8.8.8", "ipv4-compatible"],
    ["64:ff9b::a00:1", "nat64"],
    ["64:ff9b::8.8.8.8", "nat64"],
    ["64:ff9b:1::1", "nat64"],
    ["100::1", "discard"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["ff0e::1", "multicast"],
    ["2001::1", "teredo"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
    ["2001:2::1", "benchmarking"],
    ["2001:db8::1", "documentation"],
    ["2001:db8:ffff::1", "documentation"],
    ["2001:10::1", "protocol-assignments"],
    ["2001:1ff::1", "protocol-assignments"],
    ["3fff::1", "documentation"],
    ["3fff:fff::1", "documentation"],
    ["2002:7f00:1::1", "6to4"],
    ["2002:a00:1::1", "6to4"],
    ["2002:c0a8:101::1", "6to4"],
    ["2002:a9fe:a9fe::1", "6to4"],
    ["::2", "ipv4-compatible"],
    ["0:1::1", "reserved"],
    ["1::1", "reserved"],
    ["4000::1", "reserved"],
    ["5f00::1", "reserved"],
    ["e000::1", "reserved"],
    ["fe80::1%eth0", "not-an-address"],
  ];
  it.each(refusedIpv6)("refuses IPv6 %s as %s", (address, range) => {
    expect(rangeOf(address)).toBe(range);
  });

  it.each([
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2001:200::1",
    "2002:808:808::1",
    "2a00:1450::1",
    "3ffe::1",
    "3fff:1000::1",
  ])("admits global IPv6 %s", (address) => {
    expect(rangeOf(address)).toBe("ok");
  });

  it.each(["", "localhost", "example.com", "1.2.3", "256.1.1.1", "01.2.3.4", "::g", "1.2.3.4:80"])(
    "refuses %j, which is not an address",
    (text) => {
      expect(rangeOf(text)).toBe("not-an-address");
    },
  );

  it("admits loopback and private ranges only when local callbacks are allowed", () => {
    for (const address of ["127.0.0.1", "::1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "100.100.1.1", "fd00::1"]) {
      expect(rangeOf(address, strict)).not.toBe("ok");
      expect(rangeOf(address, local)).toBe("ok");
    }
  });

  it("keeps link-local, multicast, unspecified, mapped and 6to4-wrapped addresses refused even then", () => {
    for (const address of [
      "169.254.169.254",
      "fe80::1",
      "224.0.0.1",
      "0.0.0.0",
      "::",
      "255.255.255.255",
      "::ffff:127.0.0.1",
      "64:ff9b::7f00:1",
      "2002:7f00:1::1",
      "2001::1",
      "192.0.2.1",
    ]) {
      expect(rangeOf(address, local)).not.toBe("ok");
    }
  });

  it("reports the family of an admitted address", () => {
    expect(checkAddress("8.8.8.8", strict)).toEqual({ ok: true, address: "8.8.8.8", family: 4 });
    expect(checkAddress("2001:4860:4860::8888", strict)).toEqual({
      ok: true,
      address: "2001:4860:4860::8888",
      family: 6,
    });
  });
});
