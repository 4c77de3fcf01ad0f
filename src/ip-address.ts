// IP addresses and ranges for the trusted-proxy setting and the sign-in throttle, on ipaddr.js
// (already here through mailauth). Syntax is checked with node:net's isIP first: ipaddr.js also
// reads forms like "10.1" or "0x0a.0.0.1" as IPv4, which no socket or proxy writes and which
// would make one client look like several.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type AddressRange = { address: Address; prefix: number };

/**
 * An address from a socket or a header, or null if it is not one. An IPv6 zone is dropped, and an
 * IPv4-mapped IPv6 address (a dual-stack socket's "::ffff:10.0.0.1") is the IPv4 address it maps.
 */
export function parseAddress(text: string): Address | null {
  const plain = text.replace(/%[^%]*$/, "");
  if (isIP(plain) === 0) return null;
  return ipaddr.process(plain);
}

/**
 * "10.0.0.0/8", "2001:db8::/32" or a single address (a /32 or /128); an IPv4-mapped range is the
 * IPv4 range. "host_bits" when bits are set after the prefix ("10.0.0.1/8": probably a typo).
 */
export function parseRange(text: string): AddressRange | "host_bits" | null {
  const match = /^([0-9A-Fa-f:.]+)(?:\/(\d{1,3}))?$/.exec(text);
  if (!match || isIP(match[1]!) === 0) return null;
  let address: Address = ipaddr.parse(match[1]!);
  let prefix = match[2] === undefined ? (address.kind() === "ipv4" ? 32 : 128) : Number(match[2]);
  if (prefix > (address.kind() === "ipv4" ? 32 : 128)) return null;
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && prefix >= 96) {
    address = address.toIPv4Address();
    prefix -= 96;
  }
  const network = networkOf(address, prefix);
  return network.toString() === address.toString() ? { address: network, prefix } : "host_bits";
}

export function formatRange(range: AddressRange): string {
  return `${range.address.toString()}/${range.prefix}`;
}

export function inRange(address: Address, range: AddressRange): boolean {
  return address.kind() === range.address.kind() && address.match(range.address, range.prefix);
}

/** The first address of the prefix-long network an address is in. */
export function networkOf(address: Address, prefix: number): Address {
  const bytes = address.toByteArray().map((byte, i) => byte & (0xff << (8 - Math.max(0, Math.min(8, prefix - i * 8)))) & 0xff);
  return ipaddr.fromByteArray(bytes);
}

/**
 * What an address is, for deciding whether we may connect to it. Embedded IPv4 (mapped,
 * compatible, NAT64 and 6to4) is judged as the IPv4 address it carries, so "::ffff:127.0.0.1" is
 * loopback. "metadata" is a cloud instance-metadata service (AWS, GCP, Azure, Oracle on
 * 169.254.169.254, AWS over IPv6 on fd00:ec2::254, Alibaba on 100.100.100.200).
 */
export type AddressKind =
  | "public"
  | "loopback"
  | "private"
  | "unique_local"
  | "link_local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "reserved";

const METADATA = ["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"].map((text) => ipaddr.parse(text).toString());

const V4_KINDS: Record<string, AddressKind> = {
  unspecified: "unspecified",
  broadcast: "multicast",
  multicast: "multicast",
  linkLocal: "link_local",
  loopback: "loopback",
  carrierGradeNat: "private",
  private: "private",
  reserved: "reserved",
  as112: "reserved",
  amt: "reserved",
};

export function classifyAddress(address: Address): AddressKind {
  if (METADATA.includes(address.toString())) return "metadata";
  if (address instanceof ipaddr.IPv4) return V4_KINDS[address.range()] ?? "public";
  const embedded = embeddedIPv4(address);
  if (embedded) return classifyAddress(embedded);
  switch (address.range()) {
    case "unicast":
      return "public";
    case "loopback":
      return "loopback";
    case "uniqueLocal":
      return "unique_local";
    case "linkLocal":
      return "link_local";
    case "unspecified":
      return "unspecified";
    case "multicast":
      return "multicast";
    default:
      // Teredo and the other special ranges: what lies behind them cannot be checked.
      return "reserved";
  }
}

/** The IPv4 address inside an IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 address. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const tail = () => ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4;
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (parts.slice(0, 6).every((part) => part === 0) && parts[6] !== 0) return tail(); // ::a.b.c.d (deprecated)
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((part) => part === 0)) return tail();
  if (parts[0] === 0x2002) return ipaddr.fromByteArray(address.toByteArray().slice(2, 6)) as ipaddr.IPv4;
  return null;
}

/** Loopback, private and unique-local: what a local test setup may allow; never link-local or metadata. */
const PRIVATE_KINDS: readonly AddressKind[] = ["loopback", "private", "unique_local"];

/**
 * Why we must not connect to this address, or null if we may. `allowPrivate` (a setting for local
 * tests) opens loopback and private ranges only: link-local and metadata addresses hold cloud
 * credentials, and stay refused.
 */
export function refusalOf(address: Address, allowPrivate: boolean): AddressKind | null {
  const kind = classifyAddress(address);
  if (kind === "public") return null;
  if (allowPrivate && PRIVATE_KINDS.includes(kind)) return null;
  return kind;
}

const KIND_TEXT: Record<AddressKind, string> = {
  public: "a public address",
  loopback: "a loopback address",
  private: "a private-network address",
  unique_local: "a unique-local (private) IPv6 address",
  link_local: "a link-local address",
  metadata: "a cloud metadata address",
  unspecified: "an unspecified address",
  multicast: "a multicast or broadcast address",
  reserved: "a reserved or special-purpose address",
};

export function describeKind(kind: AddressKind): string {
  return KIND_TEXT[kind];
}

/**
 * A host as written in a URL or a DNS answer, read as an address if it is one, in every spelling
 * inet_aton and the WHATWG URL parser accept ("2130706433", "0177.0.0.1", "0x7f.1" are all
 * 127.0.0.1). `canonical` is false for those odd spellings: they are how filters get fooled, and
 * no one writes a real target that way.
 */
export function readHostAddress(host: string): { address: Address; canonical: boolean } | null {
  const plain = host.replace(/^\[|\]$/g, "").replace(/%[^%]*$/, "");
  if (isIP(plain) !== 0) return { address: ipaddr.parse(plain), canonical: true };
  if (ipaddr.IPv4.isValid(plain)) return { address: ipaddr.IPv4.parse(plain), canonical: false };
  return null;
}
