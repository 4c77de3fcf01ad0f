import { domainToASCII } from "node:url";
import addrs from "email-addresses";

export type ParsedAddress = { ok: true; address: string } | { ok: false; error: string };

// RFC 5321 §4.5.3.1: the longest local part, domain and path a server must accept.
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;
const MAX_ADDRESS = 254;
// Far beyond any real "Name <addr>" form; keeps the parser away from huge inputs.
const MAX_INPUT = 998;

const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Parses a recipient that must be exactly one mailbox, in plain (`a@b.example`) or
 * display-name (`Name <a@b.example>`) form, and returns its addr-spec: the local part as
 * given, the domain lower-cased (and punycoded when internationalized).
 *
 * `field` only names the input in error messages.
 */
export function parseSingleAddress(input: string, field = "to"): ParsedAddress {
  const fail = (error: string): ParsedAddress => ({ ok: false, error });
  if (typeof input !== "string" || input.trim() === "") return fail(`${field} must not be empty`);
  // Checked before parsing: a line break in a header value is header injection.
  if (/[\r\n]/.test(input)) return fail(`${field} must not contain line breaks`);
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(input)) return fail(`${field} must not contain control characters`);
  if (input.length > MAX_INPUT) return fail(`${field} is too long`);

  const parsed = plainAddrSpec(input) ?? parseList(input, ",");
  if (!parsed) {
    // "a@b.example; c@d.example" is a list in intent, if not in RFC 5322 syntax.
    const semicolonList = parseList(input, ";");
    if (semicolonList && semicolonList.length > 1) return fail(`${field} must be exactly one email address`);
    return fail(`${field} is not a valid email address`);
  }
  if (parsed.length !== 1) return fail(`${field} must be exactly one email address`);
  const only = parsed[0]!;
  if (only.type === "group") return fail(`${field} must be exactly one email address, not a group`);

  const local = only.local;
  if (!DOT_ATOM.test(local)) {
    // The parser drops the quotes of a quoted local part, so its semantic value is not a
    // usable address; such addresses are vanishingly rare, so they are refused.
    return fail(`${field} must not use a quoted or non-ASCII local part`);
  }
  if (local.length > MAX_LOCAL) return fail(`${field} has a local part longer than ${MAX_LOCAL} characters`);

  if (only.domain.startsWith("[")) return fail(`${field} must use a domain name, not an IP address`);
  const domain = normalizeDomain(only.domain);
  if (domain === null) return fail(`${field} must have a valid domain name`);
  if (!domain.includes(".")) return fail(`${field} must have a domain with a dot, like name@example.com`);
  if (domain.length > MAX_DOMAIN) return fail(`${field} has a domain that is too long`);
  const address = `${local}@${domain}`;
  if (address.length > MAX_ADDRESS) return fail(`${field} is too long`);
  return { ok: true, address };
}

/** The domain of an addr-spec, lower-cased. */
export function domainOf(address: string): string {
  const at = address.lastIndexOf("@");
  return (at < 0 ? "" : address.slice(at + 1)).toLowerCase();
}

// `local@domain` with nothing around it: an ASCII dot-atom local part and a domain of letter,
// digit and hyphen labels. The RFC 5322 grammar reads such an input one way only, as one mailbox
// with exactly that local part and domain (no display name, comment, quote or group can be in it),
// so it is answered without running the parser; test/mail/address.test.ts holds it to what the
// parser gives.
const PLAIN_ADDR_SPEC = /^([A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)$/;

/** What parseList(input, ",") gives for a plain addr-spec, or null for any other input. */
export function plainAddrSpec(input: string): [{ type: "mailbox"; local: string; domain: string }] | null {
  const match = PLAIN_ADDR_SPEC.exec(input);
  return match ? [{ type: "mailbox", local: match[1]!, domain: match[2]! }] : null;
}

export function parseList(input: string, separator: string) {
  const result = addrs({
    input,
    rfc6532: true,
    // Obsolete RFC 5322 forms (routes, CFWS between dots) are not something an agent means.
    strict: true,
    startAt: "address-list",
    addressListSeparator: separator,
  });
  return result ? result.addresses : null;
}

/** Lower-cased ASCII hostname, or null when it is not one. */
function normalizeDomain(raw: string): string | null {
  const ascii = /^[\x00-\x7f]*$/.test(raw) ? raw.toLowerCase() : domainToASCII(raw);
  if (!ascii) return null;
  const labels = ascii.split(".");
  if (!labels.every((l) => LABEL.test(l))) return null;
  // An all-numeric top label makes "1.2.3.4" look like a domain; no such TLD exists.
  if (labels.length > 1 && /^[0-9]+$/.test(labels[labels.length - 1]!)) return null;
  return ascii;
}
