// Features for mail as it is written now, beyond word tokens: character n-grams for
// scripts written without spaces, link text versus link target, lookalike and invented brand
// domains, payment / urgency / credential / threat / prize cues in several languages,
// obfuscation (look-alike letters from other scripts, zero-width characters, spaced letters,
// mathematical letters), image-heavy HTML with little text, and list headers. Every feature is
// a presence token like the rest; the model (classifier.ts) fits its weight.
import type { AddressObject, ParsedMail } from "mailparser";
import { readWording } from "../../mail/payment-wording.ts";
import WORDS from "./modern-words.json" with { type: "json" };
import { bucket, registrable } from "./shapes.ts";

const MAX_SCAN = 100_000;

// Brands phishing borrows most, with the registrable domains that are theirs: a host naming one
// outside them is a lookalike ("paypal-secure.help", "dhl.com.track-parcel.top").
const BRANDS: Record<string, string[]> = WORDS.BRANDS;
const FREEMAIL = new RegExp(`^(${WORDS.FREEMAIL_PROVIDERS.join("|")})\\.[a-z.]+$`);
const SHORTENERS = new Set(WORDS.SHORTENERS);
const RISKY_TLDS = new Set(WORDS.RISKY_TLDS);
const SECURITY_WORDS = new RegExp(`(${WORDS.SECURITY_WORDS.join("|")})`);

export function modernTokens(mail: ParsedMail, out: Set<string>): void {
  const html = typeof mail.html === "string" ? mail.html.slice(0, MAX_SCAN) : "";
  const text = (mail.text ?? "").slice(0, MAX_SCAN);
  const fromAddress = firstAddress(mail.from);
  const fromDomain = registrable(fromAddress?.address.split("@")[1] ?? "");
  const fromName = (fromAddress?.name ?? "").toLowerCase();

  // List headers: what a subscribed sender sends with every message.
  const keys = new Set(mail.headerLines.map((h) => h.key));
  if (keys.has("list-unsubscribe")) out.add("list:unsubscribe");
  if (keys.has("list-unsubscribe-post")) out.add("list:one-click");
  if (keys.has("list-id")) out.add("list:id");

  if (FREEMAIL.test(fromDomain)) out.add("from:freemail");
  const replyTo = firstAddress(mail.replyTo)?.address.split("@")[1];
  if (replyTo && FREEMAIL.test(registrable(replyTo)) && registrable(replyTo) !== fromDomain) out.add("replyto:freemail");
  const nameBrand = brandIn(fromName.replace(/[^a-z0-9]/g, ""));
  if (nameBrand && !ownDomain(nameBrand, fromDomain)) out.add("from:brand-elsewhere");
  if (fromDomain) hostShape(fromAddress!.address.split("@")[1]!.toLowerCase(), "fromhost", out);

  // Links: target hosts, and anchor text that names another host than its target.
  const hosts: string[] = [];
  for (const m of `${text}\n${html}`.matchAll(/\bhttps?:\/\/([^\s"'<>/?#:]+)/gi)) {
    hosts.push(m[1]!.toLowerCase().replace(/^[^@]*@/, ""));
    if (hosts.length > 200) break;
  }
  let elsewhere = 0;
  for (const host of new Set(hosts)) {
    if (/^\d+(\.\d+){3}$/.test(host)) continue;
    hostShape(host, "url", out);
    if (fromDomain && registrable(host) !== fromDomain) elsewhere++;
  }
  if (hosts.length > 0)
    out.add(elsewhere === 0 ? "url:all-from-domain" : elsewhere === new Set(hosts).size ? "url:none-from-domain" : "url:some-from-domain");
  let anchors = 0;
  for (const m of html.matchAll(/<a\b[^>]*?href\s*=\s*["']?([^"'\s>]+)[^>]*>([\s\S]{0,300}?)<\/a>/gi)) {
    if (++anchors > 200) break;
    const target = /^https?:\/\/([^/?#:]+)/i.exec(m[1]!)?.[1]?.toLowerCase();
    const label = m[2]!
      .replace(/<[^>]*>/g, "")
      .trim()
      .toLowerCase();
    if (!target) continue;
    const shown = /^(?:https?:\/\/)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)/.exec(label)?.[1];
    if (shown && registrable(shown) !== registrable(target)) out.add("link:text-other-host");
    if (
      /^(click here|here|verify|verify now|open|view|view document|sign in|log in|pay now|claim|confirm|update|review|download)\b/.test(
        label,
      )
    )
      out.add("link:action-text");
  }

  // Image-heavy HTML: a picture instead of words a filter could read.
  if (html) {
    const images = count(html, /<img\b/gi);
    const words = (text || html.replace(/<[^>]*>/g, " ")).split(/\s+/).filter((w) => /\p{L}{2,}/u.test(w)).length;
    if (images > 0 && words < 40) out.add("html:image-heavy");
    if (images >= 3 && words < 120) out.add("html:images-few-words");
  }

  // Obfuscation in what the reader sees (subject and text, before sanitization drops any of it).
  const seen = `${mail.subject ?? ""}\n${text || html.replace(/<[^>]*>/g, " ")}`.slice(0, MAX_SCAN);
  const zw = count(seen, /[\u200b-\u200d\u2060\ufeff\u00ad]/g);
  if (zw >= 3) out.add(`obf:zero-width:${bucket(zw)}`);
  if (/(?:^|\s)(?:\p{L}[ \u00a0]){4,}\p{L}(?=\s|$)/mu.test(seen)) out.add("obf:spaced-letters");
  if (/[\u{1d400}-\u{1d7ff}]/u.test(seen)) out.add("obf:math-letters");
  if (hasMixedScriptWord(seen)) out.add("obf:mixed-script");
  if (/\b[a-z]{2,}[0-9][a-z]{2,}\b/i.test(seen.replace(/https?:\/\/\S+/g, ""))) out.add("obf:digit-in-word");
}

function hostShape(host: string, prefix: string, out: Set<string>): void {
  const reg = registrable(host);
  const name = reg.split(".")[0] ?? "";
  const tld = host.split(".").pop() ?? "";
  if (RISKY_TLDS.has(tld)) out.add(`${prefix}:risky-tld`);
  if (SHORTENERS.has(host)) out.add(`${prefix}:shortener`);
  const brand = brandIn(host.replace(/[^a-z0-9]/g, ""));
  if (brand && !ownDomain(brand, reg)) out.add(`${prefix}:brand-elsewhere`);
  if (/\.(com|net|org|co)\.[a-z0-9-]+\.[a-z]{2,}$/.test(host) && !/\.co\.[a-z]{2}$/.test(host)) out.add(`${prefix}:embedded-domain`);
  if (name.includes("-") && SECURITY_WORDS.test(name)) out.add(`${prefix}:hyphen-security-word`);
  else if (SECURITY_WORDS.test(name)) out.add(`${prefix}:security-word`);
  const hyphens = count(name, /-/g);
  if (hyphens >= 2) out.add(`${prefix}:hyphens`);
  if (/[a-z][0-9]|[0-9][a-z]/.test(name)) out.add(`${prefix}:digits`);
  if (host.split(".").length >= 5) out.add(`${prefix}:deep`);
}

function brandIn(s: string): string | undefined {
  if (s.length < 3) return undefined;
  for (const brand of Object.keys(BRANDS))
    if (s.includes(brand) && (brand.length >= 4 || new RegExp(`(^|[^a-z])${brand}([^a-z]|$)`).test(s))) return brand;
  return undefined;
}

function ownDomain(brand: string, reg: string): boolean {
  return (BRANDS[brand] ?? []).some((d) => reg === d || reg.endsWith(`.${d}`));
}

// Cue families in several languages. Each present family is a token, and so is each pair of
// families (credential + threat is phishing; payment + urgency is a fee scam).
const cue = (family: { words: string[]; unspaced: string[] }) =>
  new RegExp([`\\b(${family.words.join("|")})`, ...family.unspaced].join("|"), "i");
const CUES: Record<string, RegExp> = {
  urgency: cue(WORDS.CUES.urgency),
  payment: cue(WORDS.CUES.payment),
  credentials: cue(WORDS.CUES.credentials),
  threat: cue(WORDS.CUES.threat),
  prize: cue(WORDS.CUES.prize),
  // Amounts are short: an unbounded [\d.,]* tried from every digit of a long run is quadratic.
  money: /(?:[$€£¥₽₺]\s?\d|\d[\d.,]{0,24}\s?(?:usd|eur|gbp|usdt|btc|eth|€|zł|₽|tl|kr|円|元|원|درهم)\b|\b\d+(?:[.,]\d+)?\s?%)/i,
  offmail: /\b(whatsapp|telegram|signal app|wechat|微信|line id|viber)\b/i,
};

export function cueTokens(text: string, out: Set<string>): void {
  const present: string[] = [];
  const sample = text.slice(0, MAX_SCAN);
  for (const [name, re] of Object.entries(CUES)) if (re.test(sample)) present.push(name);
  // Social engineering without spam words (a bank change, a request for money, secrecy or
  // pressure, payment details, an offer to verify by phone): sender risk's wording in 26
  // languages, as cues of their own so their pairs with the rest are tokens too.
  const wording = readWording("", sample);
  for (const [name, hit] of Object.entries(wording)) if (hit) present.push(`se-${name}`);
  for (const p of present) out.add(`cue:${p}`);
  for (let i = 0; i < present.length; i++) for (let j = i + 1; j < present.length; j++) out.add(`cue:${present[i]}+${present[j]}`);
  out.add(`cue:n:${present.length}`);
}

// A free-mail sender is ordinary and so is each cue; together (a stranger's Gmail asking to move
// to WhatsApp, a "director" on Gmail asking for a transfer) they are how scams without spam
// words read. Each pair is a token, so the model weighs the pair apart from its parts.
export function senderCuePairs(tokens: Set<string>): void {
  if (!tokens.has("from:freemail") && !tokens.has("replyto:freemail")) return;
  const cues = [...tokens].filter((t) => t.startsWith("cue:") && !t.includes("+") && !t.startsWith("cue:n:"));
  for (const cue of cues) tokens.add(`freemail+${cue}`);
  if (!tokens.has("url:all-from-domain") && !tokens.has("url:some-from-domain") && !tokens.has("url:none-from-domain"))
    tokens.add("freemail+no-link");
}

// Scripts written without spaces (CJK, kana, Thai) give no words; their character bigrams are
// the language-neutral stand-in.
export function charGrams(text: string, out: Set<string>): void {
  let n = 0;
  for (const run of text
    .slice(0, 20_000)
    .matchAll(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]{2,}/gu)) {
    const s = [...run[0]];
    for (let i = 0; i + 1 < s.length; i++) {
      out.add(`c2:${s[i]}${s[i + 1]}`);
      if (++n > 2000) return;
    }
  }
}

// Character n-grams of the words of every other script (Latin, Cyrillic, Greek, Arabic, ...),
// each word framed by "_" so its start and end are grams too: the inflections, compounds and
// misspellings of a word share most of its grams, in any language, without a stemmer per
// language. Bounded per message.
const GRAMS_PER_MESSAGE = 4000;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

export function wordGrams(words: Iterable<string>, n: number, out: Set<string>): void {
  let added = 0;
  for (const w of words) {
    if (w.startsWith("long:") || UNSPACED.test(w)) continue;
    const s = [...`_${w}_`];
    for (let i = 0; i + n <= s.length; i++) {
      out.add(`g:${s.slice(i, i + n).join("")}`);
      if (++added >= GRAMS_PER_MESSAGE) return;
    }
  }
}

/**
 * A word of three letters or more mixing Latin with Cyrillic or Greek look-alikes. Word by word:
 * one regular expression with both conditions as look-aheads rescans the rest of the word from
 * every letter, and a single long line of letters then took seconds.
 */
function hasMixedScriptWord(text: string): boolean {
  for (const [word] of text.matchAll(/\p{L}{3,}/gu)) {
    if (/\p{Script=Latin}/u.test(word) && /[\p{Script=Cyrillic}\p{Script=Greek}]/u.test(word)) return true;
  }
  return false;
}

function count(text: string, re: RegExp): number {
  let n = 0;
  for (const _ of text.matchAll(re)) n++;
  return n;
}

function firstAddress(field: AddressObject | AddressObject[] | undefined): { address: string; name: string } | undefined {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  const first = list[0]?.value[0];
  return first ? { address: (first.address ?? "").toLowerCase(), name: first.name ?? "" } : undefined;
}
