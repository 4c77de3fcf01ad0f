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
