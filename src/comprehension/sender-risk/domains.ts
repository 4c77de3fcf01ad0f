// Domains as a reader of mail sees them: the registrable domain (Public Suffix List, npm tldts),
// a confusable skeleton of it, and whether one domain is made to look like another the mailbox
// knows. A lookalike is what an attacker registers to pass SPF, DKIM and DMARC under a name the
// reader trusts: a letter swapped or doubled (northwind-suppIies, cabinet-morreau), a digit for a
// letter (gl0bex), another script's letters (Cyrillic с and о in соntoso), accents (contì), the
// same name under another suffix (fabrikam.co for fabrikam.co.uk), the name with a word added
// (globex-metals-billing) or the whole known domain as a subdomain of another
// (northwind-supplies.com.remit-center.net).
import { domainToUnicode } from "node:url";
import { parse } from "tldts";
import { LATIN_LOOKALIKES } from "../../mail/lookalike-letters.ts";
import WORDS from "./domains-words.json" with { type: "json" };

export type Domain = { host: string; registrable: string; label: string; suffix: string };

/** The registrable domain of a host name, or null for something that is not one. */
export function domainOf(host: string): Domain | null {
  const unicode = host.includes("xn--") ? domainToUnicode(host) || host : host;
  const lower = unicode.trim().toLowerCase().replace(/\.$/, "");
  if (!lower || lower.length > 253) return null;
  const parsed = parse(lower, { validateHostname: false });
  if (!parsed.domain || !parsed.domainWithoutSuffix || parsed.isIp) return null;
  return { host: lower, registrable: parsed.domain, label: parsed.domainWithoutSuffix, suffix: parsed.publicSuffix ?? "" };
}

export function domainOfAddress(address: string): Domain | null {
  const at = address.lastIndexOf("@");
  return at < 0 ? null : domainOf(address.slice(at + 1));
}

// Letters of other scripts that render like Latin ones, and digit-for-letter swaps. The upper-case
// I is read as l before lower-casing: in "suppIies" it stands for an l.
const CONFUSABLE: Record<string, string> = {
  // lower case only: the skeleton lower-cases first
  ...Object.fromEntries(Object.entries(LATIN_LOOKALIKES).filter(([from]) => from === from.toLowerCase())),
  ɡ: "g",
  "0": "o",
  "1": "l",
  "3": "e",
  "5": "s",
  "@": "a",
  $: "s",
};

/** A form of the text in which look-alike spellings coincide. */
export function skeleton(text: string): string {
  let out = "";
  for (const ch of text.replace(/I/g, "l").toLowerCase().normalize("NFD")) {
    if (/\p{M}/u.test(ch)) continue; // accents
    out += CONFUSABLE[ch] ?? ch;
  }
  return out.replace(/rn/g, "m").replace(/vv/g, "w").replace(/[il]/g, "l");
}

/** Levenshtein distance, stopping early above `limit`. */
export function editDistance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(value);
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    prev = row;
  }
  return prev[b.length]!;
}

const flat = (label: string) => skeleton(label).replace(/[-_.]/g, "");

/**
 * How `candidate` imitates `known`, or null when it does not (or is the same registrable domain).
 * The raw host is passed too: a known domain written into a subdomain is the trick.
 */
export function imitation(candidate: Domain, known: Domain): string | null {
  if (candidate.registrable === known.registrable) return null;
  if (candidate.host.startsWith(`${known.registrable}.`) || candidate.host.includes(`.${known.registrable}.`))
    return `carries ${known.registrable} as a subdomain of ${candidate.registrable}`;
  const a = flat(candidate.label);
  const b = flat(known.label);
  if (b.length < 4) return null;
  if (a === b)
    return candidate.label === known.label ? `same name as ${known.registrable} under another suffix` : `spelled like ${known.registrable}`;
  const limit = b.length <= 8 ? 1 : 2;
  if (editDistance(a, b, limit) <= limit) return `one or two letters away from ${known.registrable}`;
  // the known name with a word added: globex-metals-billing, acmerobotics-group
  if (b.length >= 6 && a.includes(b)) return `contains ${known.registrable}'s name`;
  return null;
}

const FREEMAIL = new Set(WORDS.FREEMAIL);

/** A mailbox provider anyone can sign up to: its domain says nothing about who writes. */
export function isFreemail(domain: Domain | null): boolean {
  return domain !== null && FREEMAIL.has(domain.registrable);
}
