// Where a webhook may be delivered. The URL must be http(s); its host is resolved once and every
// address is checked against loopback, private, link-local, multicast, reserved and cloud-metadata
// ranges (src/ip-address.ts; WEBHOOK_ALLOW_PRIVATE_NETWORKS opens loopback and private ones only).
// The check runs when the URL is set (a human hears why at once) and again at every attempt: the
// request connects to the address that was checked then, so a DNS answer that changes between
// setting, check and connect (rebinding) cannot redirect it.
import { isIP } from "node:net";
import { describeKind, readHostAddress, refusalOf } from "../../ip-address.ts";
import type { ResolveFn } from "../../mail/resolver.ts";
import { errors } from "../errors.ts";

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

/** True when a webhook may never go to this address text (private networks not allowed). */
export function isBlockedAddress(address: string): boolean {
  const read = readHostAddress(address);
  return !read?.canonical || refusalOf(read.address, false) !== null;
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
    const [v4, v6] = await Promise.all([resolve(host, "A").catch(() => [] as string[]), resolve(host, "AAAA").catch(() => [] as string[])]);
    // A DNS answer is data like any other: an A record holding "2130706433" is not an address.
    const answers = [...(v4 as string[]), ...(v6 as string[])].filter((address) => isIP(address) !== 0);
    candidates = answers.map((address) => ({ address, family: isIP(address) as 4 | 6 }));
    if (candidates.length === 0) throw new UnsafeTargetError(`could not resolve ${host}`);
  }
  // Every address must be safe: an attacker controls which one a client would pick.
  for (const candidate of candidates) {
    const kind = refusalOf(readHostAddress(candidate.address)!.address, allowPrivate);
    if (!kind) continue;
    const what = describeKind(kind);
    throw new UnsafeTargetError(isIP(host) ? `refused: ${host} is ${what}` : `refused: ${host} resolves to ${what} (${candidate.address})`);
  }
  return { url, ...candidates[0]! };
}

/**
 * The check when a human sets the URL: syntax, then the host as written (an odd numeric spelling
 * such as 2130706433, 0177.0.0.1 or 0x7f.1 is refused outright), then the addresses it resolves
 * to now, judged as an attempt would judge them. Each refusal is a 400 that says why.
 */
export async function checkWebhookTarget(raw: string, resolve: ResolveFn, allowPrivate: boolean): Promise<URL> {
  const url = validateWebhookUrl(raw);
  // The URL parser turns every numeric spelling (and percent-escapes) into a dotted quad, so a
  // host that reads as IPv4 but was not written as exactly that quad was written oddly.
  const written = writtenHost(raw);
  if (isIP(url.hostname) === 4 && written !== url.hostname) {
    const shown = written ? `${written} ` : "";
    throw errors.validation(
      `webhook url host ${shown}is an unusual spelling of the address ${url.hostname}; write addresses as plain dotted quads`,
    );
  }
  try {
    await resolveWebhookTarget(url.href, resolve, allowPrivate);
  } catch (error) {
    if (error instanceof UnsafeTargetError) throw errors.validation(`webhook url ${error.message}`);
    throw error;
  }
  return url;
}

/** The host as the text gives it, before the URL parser normalizes numbers into a dotted quad. */
function writtenHost(raw: string): string | null {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\\]*)/i.exec(raw.trim())?.[1];
  if (authority === undefined) return null;
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  return host.replace(/:\d*$/, "").replace(/\.$/, "").toLowerCase();
}
