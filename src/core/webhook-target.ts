// Where a webhook may be delivered. The URL must be http(s); its host is resolved once and every
// address is checked against loopback, private, link-local, multicast, reserved and cloud-metadata
// ranges (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS). The request then connects to the address that was
// checked, so a DNS answer that changes between check and connect (rebinding) cannot redirect it.
import { isIP } from "node:net";
import type { ResolveFn } from "../mail/resolver.ts";
import { errors } from "./errors.ts";

export type WebhookTarget = { url: URL; address: string; family: 4 | 6 };

export class UnsafeTargetError extends Error {}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Syntax only, for configuration time (400 for a human); the network check runs per attempt. */
export function validateWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw errors.validation("webhook url is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw errors.validation("webhook url must be http or https");
  if (url.username || url.password) throw errors.validation("webhook url must not contain credentials");
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw errors.validation("webhook url is too long");
  return url;
}

function ipv4ToNumber(address: string): number {
  return address.split(".").reduce((value, part) => value * 256 + Number(part), 0);
}

const blockedV4: [string, number][] = [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.88.99.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24],
  ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
];

function isBlockedV4(address: string): boolean {
  const value = ipv4ToNumber(address);
  return blockedV4.some(([base, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return ((value & mask) >>> 0) === ((ipv4ToNumber(base) & mask) >>> 0);
  });
}

function expandV6(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hextets.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const v4 = ipv4ToNumber(quad[1]!);
    text = text.replace(quad[1]!, `${((v4 >>> 16) & 0xffff).toString(16)}:${(v4 & 0xffff).toString(16)}`);
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((part) => parseInt(part || "0", 16));
}

function isBlockedV6(address: string): boolean {
  const h = expandV6(address);
  const embeddedV4 = () => `${h[6]! >> 8}.${h[6]! & 255}.${h[7]! >> 8}.${h[7]! & 255}`;
  if (h.slice(0, 7).every((x) => x === 0)) return true; // :: and ::1
  if (h.slice(0, 6).every((x) => x === 0)) return isBlockedV4(embeddedV4()); // IPv4-compatible (deprecated)
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) return isBlockedV4(embeddedV4()); // IPv4-mapped
  if (h[0] === 0x2002) return isBlockedV4(`${h[1]! >> 8}.${h[1]! & 255}.${h[2]! >> 8}.${h[2]! & 255}`); // 6to4
  if (h[0] === 0x2001 && h[1] === 0) return true; // Teredo: the IPv4 behind it cannot be checked
  if (h[0] === 0x64 && h[1] === 0xff9b && h[2] === 1) return true; // local-use NAT64
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) return isBlockedV4(embeddedV4()); // NAT64
  if ((h[0]! & 0xfe00) === 0xfc00) return true; // unique local (includes fd00:ec2::254 metadata)
  if ((h[0]! & 0xffc0) === 0xfe80) return true; // link-local
  if ((h[0]! & 0xff00) === 0xff00) return true; // multicast
  if (h[0] === 0x2001 && h[1] === 0x0db8) return true; // documentation
  return false;
}

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isBlockedV4(address);
  if (family === 6) return isBlockedV6(address);
  return true;
}

/** Resolves and checks the URL's host; throws UnsafeTargetError with a reason fit for the attempt log. */
export async function resolveWebhookTarget(raw: string, resolve: ResolveFn, allowPrivate: boolean): Promise<WebhookTarget> {
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UnsafeTargetError("webhook url must be http or https");
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();

  let candidates: { address: string; family: 4 | 6 }[];
  if (isIP(host)) {
    candidates = [{ address: host, family: isIP(host) as 4 | 6 }];
  } else if (host === "localhost" || host.endsWith(".localhost")) {
    candidates = [{ address: "127.0.0.1", family: 4 }];
  } else {
    const v4 = await resolve(host, "A").catch(() => [] as string[]);
    const v6 = await resolve(host, "AAAA").catch(() => [] as string[]);
    candidates = [...(v4 as string[]).map((address) => ({ address, family: 4 as const })), ...(v6 as string[]).map((address) => ({ address, family: 6 as const }))];
    if (candidates.length === 0) throw new UnsafeTargetError(`could not resolve ${host}`);
  }
  // Every address must be safe: an attacker controls which one a client would pick.
  if (!allowPrivate) {
    const blocked = candidates.find((candidate) => isBlockedAddress(candidate.address));
    if (blocked) throw new UnsafeTargetError(`refused: ${host} resolves to a non-public address (${blocked.address})`);
  }
  return { url, ...candidates[0]! };
}
