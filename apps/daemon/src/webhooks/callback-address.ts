/**
 * Which addresses a webhook callback may reach (seed 004's SSRF validator, research/peers.md §1.6,
 * mcp-events.md §9.3): only globally routable unicast. IPv4 is checked against the IANA
 * special-purpose ranges; IPv6 must be in 2000::/3 and outside its special blocks, and 6to4
 * addresses are judged by the IPv4 they embed. The unsafe local option admits loopback and private
 * ranges only; link-local (cloud metadata), multicast and the rest stay refused.
 */
import { isIP } from "node:net";

/** Why an address is refused; a closed list, reported in logs and tests. */
export type RefusedRange =
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "unique-local"
  | "link-local"
  | "site-local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "protocol-assignments"
  | "reserved"
  | "discard"
  | "ipv4-mapped"
  | "ipv4-compatible"
  | "nat64"
  | "teredo"
  | "6to4"
  | "not-an-address";

export type AddressVerdict =
  | { readonly ok: true; readonly address: string; readonly family: 4 | 6 }
  | { readonly ok: false; readonly range: RefusedRange };

export interface AddressPolicy {
  /** `--unsafe-allow-local-callbacks`: admit loopback, RFC 1918, CGNAT and unique-local addresses. */
  readonly allowLocal: boolean;
}

/** The ranges `--unsafe-allow-local-callbacks` admits. */
const LOCAL_RANGES: ReadonlySet<RefusedRange> = new Set(["loopback", "private", "shared", "unique-local"]);

type Ipv4Range = readonly [base: number, bits: number, range: RefusedRange];

const ipv4 = (text: string): number => text.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);

// Most specific first: 255.255.255.255 is inside 240/4.
const IPV4_RANGES: readonly Ipv4Range[] = [
  [ipv4("255.255.255.255"), 32, "broadcast"],
  [ipv4("0.0.0.0"), 8, "unspecified"],
  [ipv4("10.0.0.0"), 8, "private"],
  [ipv4("100.64.0.0"), 10, "shared"],
  [ipv4("127.0.0.0"), 8, "loopback"],
  [ipv4("169.254.0.0"), 16, "link-local"],
  [ipv4("172.16.0.0"), 12, "private"],
  [ipv4("192.0.0.0"), 24, "protocol-assignments"],
  [ipv4("192.0.2.0"), 24, "documentation"],
  [ipv4("192.88.99.0"), 24, "reserved"],
  [ipv4("192.168.0.0"), 16, "private"],
  [ipv4("198.18.0.0"), 15, "benchmarking"],
  [ipv4("198.51.100.0"), 24, "documentation"],
  [ipv4("203.0.113.0"), 24, "documentation"],
  [ipv4("224.0.0.0"), 4, "multicast"],
  [ipv4("240.0.0.0"), 4, "reserved"],
];

function ipv4Range(value: number): RefusedRange | undefined {
  for (const [base, bits, range] of IPV4_RANGES) {
    const size = 2 ** (32 - bits);
    if (value >= base && value < base + size) return range;
  }
  return undefined;
}

/** The 16 bytes of a valid IPv6 literal (with or without an embedded dotted quad). */
function ipv6Bytes(text: string): Uint8Array {
  const groups = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [parseInt(group, 16)];
          const value = ipv4(group);
          return [Math.floor(value / 65536), value % 65536];
        });
  const [head, tail] = text.split("::") as [string, string | undefined];
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return bytes;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const byte = Math.floor(bit / 8);
    const mask = 0x80 >> (bit % 8);
    if (((bytes[byte]! ^ (prefix[byte] ?? 0)) & mask) !== 0) return false;
  }
  return true;
}

const word = (bytes: Uint8Array, at: number) =>
  ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;

type Ipv6Range = readonly [prefix: readonly number[], bits: number, range: RefusedRange];

// Checked in order; everything outside 2000::/3 that is not named here is "reserved".
const IPV6_OUTSIDE_GLOBAL: readonly Ipv6Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, "ipv4-mapped"],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96, "ipv4-compatible"],
  [[0, 0x64, 0xff, 0x9b], 96, "nat64"],
  [[0, 0x64, 0xff, 0x9b, 0, 1], 48, "nat64"],
  [[1, 0, 0, 0, 0, 0, 0, 0], 64, "discard"],
  [[0xfc], 7, "unique-local"],
  [[0xfe, 0x80], 10, "link-local"],
  [[0xfe, 0xc0], 10, "site-local"],
  [[0xff], 8, "multicast"],
];

const IPV6_INSIDE_GLOBAL: readonly Ipv6Range[] = [
  [[0x20, 0x01, 0, 0], 32, "teredo"],
  [[0x20, 0x01, 0, 0x02, 0, 0], 48, "benchmarking"],
  [[0x20, 0x01, 0x0d, 0xb8], 32, "documentation"],
  [[0x20, 0x01], 23, "protocol-assignments"],
  [[0x3f, 0xff], 20, "documentation"],
];

function ipv6Range(bytes: Uint8Array): RefusedRange | undefined {
  if (bytes.every((b) => b === 0)) return "unspecified";
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return "loopback";
  for (const [prefix, bits, range] of IPV6_OUTSIDE_GLOBAL) if (startsWith(bytes, prefix, bits)) return range;
  if (!startsWith(bytes, [0x20], 3)) return "reserved";
  for (const [prefix, bits, range] of IPV6_INSIDE_GLOBAL) if (startsWith(bytes, prefix, bits)) return range;
  // 6to4 (2002::/16) carries an IPv4 address in bits 16-48; it is as public as that address.
  if (startsWith(bytes, [0x20, 0x02], 16) && ipv4Range(word(bytes, 2)) !== undefined) return "6to4";
  return undefined;
}

/** Judges one IP address (as DNS or a URL gives it) under the policy. */
export function checkAddress(address: string, policy: AddressPolicy): AddressVerdict {
  const family = isIP(address);
  // A zone id ("fe80::1%eth0") scopes an address to one link; no callback needs one.
  if (family === 0 || address.includes("%")) return { ok: false, range: "not-an-address" };
  const range = family === 4 ? ipv4Range(ipv4(address)) : ipv6Range(ipv6Bytes(address));
  if (range === undefined || (policy.allowLocal && LOCAL_RANGES.has(range))) {
    return { ok: true, address, family: family === 4 ? 4 : 6 };
  }
  return { ok: false, range };
}

/** The host of a URL as a bare name or address (IPv6 without brackets). */
export function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}
