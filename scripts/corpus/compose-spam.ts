// Composes the modern spam/ham training slice from the fragment banks (fragments-spam.ts,
// fragments-ham.ts): per message a family, a language, a few fragments of each kind, invented
// brands and domains (lookalikes of well-known brands for phishing, a brand's own domain for
// ham), plain text or HTML, optional signature, quoted history, list headers, Reply-To and
// obfuscation. Deterministic for a seed, so the slice is reproducible without committing it.
//
//   bun scripts/corpus/compose-spam.ts [--n 4000] [--seed 1] [--out file.jsonl]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { HAM_EN, HAM_INTL } from "./fragments-ham.ts";
import { SPAM_EN, SPAM_INTL } from "./fragments-spam.ts";
import type { CorpusRecord } from "./mail-file.ts";

export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const SYL = [
  "ver",
  "lo",
  "qui",
  "tex",
  "nor",
  "ba",
  "ri",
  "on",
  "sa",
  "vi",
  "ta",
  "mon",
  "cor",
  "el",
  "zen",
  "pla",
  "dri",
  "fa",
  "ku",
  "mi",
  "ro",
  "sto",
  "lux",
  "ar",
  "den",
  "gro",
  "ni",
  "pex",
  "tal",
  "ve",
];
const FIRST = [
  "Anna",
  "Ben",
  "Chloe",
  "David",
  "Elena",
  "Farid",
  "Grace",
  "Hugo",
  "Ines",
  "Jonas",
  "Kira",
  "Liam",
  "Maya",
  "Noah",
  "Olga",
  "Pedro",
  "Quinn",
  "Rosa",
  "Sven",
  "Tara",
  "Umar",
  "Vera",
  "Will",
  "Xu",
  "Yara",
  "Zoe",
  "Mark",
  "Lisa",
  "Kenji",
  "Aisha",
  "Tomasz",
  "Marie",
];
const LAST = [
  "Smith",
  "Keller",
  "Dubois",
  "Rossi",
  "Nowak",
  "Tanaka",
  "Silva",
  "Jansen",
  "Berg",
  "Costa",
  "Walsh",
  "Ortiz",
  "Novak",
  "Hughes",
  "Lindqvist",
  "Moreau",
  "Yilmaz",
  "Petrov",
  "Chen",
  "Kumar",
];
const CITIES = [
  "Lagos",
  "Leeds",
  "Lyon",
  "Porto",
  "Gdansk",
  "Osaka",
  "Denver",
  "Bremen",
  "Malmo",
  "Izmir",
  "Kyiv",
  "Manila",
  "Lima",
  "Turin",
];
const BIG = [
  "microsoft",
  "paypal",
  "amazon",
  "apple",
  "netflix",
  "dhl",
  "fedex",
  "ups",
  "docusign",
  "dropbox",
  "google",
  "coinbase",
  "binance",
  "chase",
  "wellsfargo",
  "hsbc",
  "santander",
  "outlook",
  "office365",
  "icloud",
  "adobe",
  "wetransfer",
  "spotify",
  "steam",
  "meta",
  "instagram",
  "linkedin",
  "revolut",
  "ing",
  "sparkasse",
  "posteitaliane",
  "correos",
  "laposte",
  "postnl",
  "royalmail",
  "usps",
  "hmrc",
  "irs",
  "norton",
  "mcafee",
];
const RISKY_TLD = [
  "top",
  "xyz",
  "icu",
  "shop",
  "click",
  "live",
  "online",
  "site",
  "info",
  "cc",
  "biz",
  "support",
  "help",
  "life",
  "store",
  "buzz",
  "rest",
  "monster",
];
const SAFE_TLD = ["com", "com", "com", "co.uk", "de", "fr", "io", "net", "org", "es", "it", "nl", "se", "com.br", "co.jp"];
const SEC_WORDS = [
  "secure",
  "verify",
  "login",
  "account",
  "billing",
  "support",
  "update",
  "service",
  "auth",
  "confirm",
  "online",
  "portal",
  "help",
  "id",
  "signin",
  "notice",
  "alert",
  "pay",
  "refund",
  "track",
];
const TOPICS = [
  "remote work",
  "the housing market",
  "AI in schools",
  "the chip shortage",
  "city cycling",
  "sleep science",
  "open source funding",
  "the energy transition",
];
const PRODUCTS = ["Slides", "Notes", "Board", "Flow", "Studio", "One", "Air", "Pro"];
const DOCS = [
  "Q3 Payroll.xlsx",
  "Contract_final.pdf",
  "Invoice_0412.pdf",
  "Bonus structure 2026.docx",
  "Scan_0031.pdf",
  "Statement.pdf",
  "Purchase Order 7719.pdf",
];
const FREEMAIL = ["gmail.com", "outlook.com", "yahoo.com", "hotmail.com", "proton.me", "mail.com", "aol.com", "gmx.com"];
const SHORT = ["bit.ly", "tinyurl.com", "t.co", "is.gd", "cutt.ly", "rb.gy"];
const CONFUSABLE: Record<string, string> = {
  a: "а",
  e: "е",
  o: "о",
  p: "р",
  c: "с",
  x: "х",
  y: "у",
  i: "і",
  A: "Α",
  B: "Β",
  E: "Ε",
  H: "Η",
  I: "Ι",
  K: "Κ",
  M: "Μ",
  O: "Ο",
  P: "Ρ",
  T: "Τ",
};

type R = () => number;
const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const some = <T>(r: R, xs: readonly T[], lo: number, hi: number): T[] => {
  const n = Math.min(xs.length, lo + Math.floor(r() * (hi - lo + 1)));
  const copy = [...xs];
  const out: T[] = [];
  while (out.length < n) out.push(copy.splice(Math.floor(r() * copy.length), 1)[0]!);
  return out;
};

function invent(r: R): string {
  const n = 2 + Math.floor(r() * 2);
  let s = "";
  for (let i = 0; i < n; i++) s += pick(r, SYL);
  return s;
}
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function money(r: R, lang: string): string {
  const v = pick(r, [49, 99, 250, 412.5, 749.99, 1284, 2300, 4950, 18400, 85000]);
  const cur = lang === "en" ? pick(r, ["$", "£", "€", "USD ", "EUR "]) : pick(r, ["€", "$", "USD ", ""]);
  return cur.endsWith(" ") ? `${cur}${v}` : cur ? `${cur}${v.toLocaleString("en-US")}` : `${v} €`;
}

type Ctx = { brand: string; brandDomain: string; spamHost: string; first: string; last: string; other: string; lang: string };

function fill(r: R, text: string, c: Ctx, link: () => string): string {
  return text.replace(/\{(\w+)\}/g, (_, k: string) => {
    switch (k) {
      case "brand":
        return cap(c.brand);
      case "amount":
        return money(r, c.lang);
      case "small":
        return String(pick(r, [1.99, 2.35, 2.99, 4.95, 12, 35, 60, 120, 250]));
      case "id":
        return `${pick(r, ["INV-", "PX", "#", "ORD-", "", "A-"])}${Math.floor(r() * 9e6 + 1e6)}`;
      case "hours":
        return String(pick(r, [12, 24, 48, 72]));
      case "pct":
        return String(pick(r, [3.8, 9, 12, 30, 40, 50, 120, 320, 900]));
      case "first":
        return c.first;
      case "last":
        return c.last;
      case "other":
        return c.other;
      case "name":
        return `${c.first} ${c.last}`;
      case "link":
        return link();
      case "homelink":
        return `https://${pick(r, ["www.", "", "app.", "account."])}${c.brandDomain}/${pick(r, ["reset", "orders", "track", "account", "settings"])}?t=${Math.floor(r() * 1e8).toString(36)}`;
      case "date":
        return pick(r, ["12 June", "Friday", "30/05/2026", "May 31", "1 July 2026", "Monday 9 June"]);
      case "coin":
        return pick(r, ["BTC", "ETH", "USDT", "SOL", cap(c.brand).slice(0, 4).toUpperCase()]);
      case "city":
        return pick(r, CITIES);
      case "phone":
        return pick(r, ["+1 (808) 555-0143", "+44 7700 900412", "+34 611 000 123", "1-888-555-0177", "+7 901 555 22 11"]);
      case "wallet":
        return `bc1q${Math.floor(r() * 1e15).toString(36)}${Math.floor(r() * 1e15).toString(36)}`;
      case "freemail":
        return `${c.first.toLowerCase()}.${c.last.toLowerCase()}${Math.floor(r() * 99)}@${pick(r, FREEMAIL)}`;
      case "doc":
        return pick(r, DOCS);
      case "topic":
        return pick(r, TOPICS);
      case "product":
        return pick(r, PRODUCTS);
      case "code":
        return Math.floor(r() * 1e9)
          .toString(36)
          .toUpperCase()
          .slice(0, 6);
      case "code6":
        return String(Math.floor(r() * 900000 + 100000));
      case "last4":
        return String(Math.floor(r() * 9000 + 1000));
      case "meeting":
        return pick(r, ["Roadmap review", "1:1", "Sprint planning", "Budget sync", "Assay review", "Hiring panel"]);
      case "project":
        return pick(r, ["the Q3 plan", "website launch", "Harbour project", "audit", "Lumen", "migration"]);
      case "month":
        return pick(r, ["May", "June", "April", "March"]);
      case "company":
        return cap(invent(r));
      case "role":
        return pick(r, ["Data Engineer", "Accountant", "Nurse", "Product Designer", "Sales Manager"]);
      case "street":
        return `${Math.floor(r() * 200 + 1)} ${pick(r, ["Market St", "High Street", "Rue Lafayette", "Hauptstraße", "Calle Mayor"])}`;
      case "domain":
        return c.brandDomain;
      default:
        return "";
    }
  });
}

function spamHost(r: R, lang: string): { host: string; impersonated: string | null } {
  const big = r() < 0.55 ? pick(r, BIG) : null;
  const base = big ?? invent(r);
  const style = Math.floor(r() * 7);
  const tld = r() < 0.6 ? pick(r, RISKY_TLD) : pick(r, ["com", "net", "org", "co", lang === "en" ? "us" : lang]);
  const host =
    style === 0
      ? `${base}-${pick(r, SEC_WORDS)}.${tld}`
      : style === 1
        ? `${base}.com.${pick(r, SEC_WORDS)}-${invent(r)}.${pick(r, RISKY_TLD)}`
        : style === 2
          ? `${pick(r, SEC_WORDS)}-${base}-${pick(r, SEC_WORDS)}.${tld}`
          : style === 3
            ? `${base}${pick(r, SEC_WORDS)}${Math.floor(r() * 99)}.${tld}`
            : style === 4
              ? `${invent(r)}.${pick(r, RISKY_TLD)}`
              : style === 5
                ? `${base.replace(/o/, "0").replace(/l/, "1")}.${tld}`
                : `${base}-${invent(r)}.${tld}`;
  return { host, impersonated: big };
}

function spamLink(r: R, host: string): string {
  const u = Math.random;
  void u;
  const roll = r();
  if (roll < 0.08) return `https://${pick(r, SHORT)}/${Math.floor(r() * 1e9).toString(36)}`;
  if (roll < 0.12)
    return `http://${Math.floor(r() * 200 + 20)}.${Math.floor(r() * 255)}.${Math.floor(r() * 255)}.${Math.floor(r() * 255)}/${pick(r, SEC_WORDS)}.php`;
  return `${r() < 0.85 ? "https" : "http"}://${r() < 0.3 ? `${pick(r, SEC_WORDS)}.` : ""}${host}/${pick(r, SEC_WORDS)}${r() < 0.5 ? `?id=${Math.floor(r() * 1e7).toString(36)}` : ""}`;
}

function obfuscate(r: R, text: string): string {
  const mode = Math.floor(r() * 4);
  const words = text.split(" ");
  const targets = new Set(
    some(
      r,
      words.map((_, i) => i),
      2,
      5,
    ),
  );
  return words
    .map((w, i) => {
      if (!targets.has(i) || w.length < 4 || /https?:/.test(w)) return w;
      if (mode === 0) return [...w].map((ch) => (r() < 0.5 && CONFUSABLE[ch] ? CONFUSABLE[ch] : ch)).join("");
      if (mode === 1) return [...w].join("\u200b");
      if (mode === 2) return [...w].join(" ");
      return [...w].map((ch) => (/[a-z]/.test(ch) ? String.fromCodePoint(0x1d5ee + ch.charCodeAt(0) - 97) : ch)).join("");
    })
    .join(" ");
}

function html(r: R, paragraphs: string[], imageHeavy: boolean, linkTextOf: (url: string) => string): string {
  const body = paragraphs
    .map((p) =>
      p
        .replace(/&/g, "&amp;")
        .replace(/</g, "&lt;")
        .replace(/(https?:\/\/[^\s<]+)/g, (url) => `<a href="${url}">${linkTextOf(url)}</a>`)
        .replace(/\n/g, "<br>"),
    )
    .map((p) => `<p${r() < 0.3 ? ` style="font-family:Arial;font-size:${pick(r, [12, 14, 16])}px"` : ""}>${p}</p>`);
  if (imageHeavy)
    body.unshift(
      `<img src="https://${pick(r, ["cdn", "img", "static"])}.${invent(r)}.com/b/${Math.floor(r() * 1e6)}.jpg" width="600" alt="">`,
    );
  return `<html><body>${r() < 0.4 ? '<table width="600" align="center"><tr><td>' : ""}${body.join("\n")}${r() < 0.4 ? "</td></tr></table>" : ""}</body></html>`;
}

function header(name: string, value: string): [string, string] {
  return [name, value];
}

export function composeSpam(r: R, i: number): CorpusRecord {
  const intl = r() < 0.3;
  const lang = intl ? pick(r, Object.keys(SPAM_INTL)) : "en";
  const first = pick(r, FIRST);
  const last = pick(r, LAST);
  const { host, impersonated } = spamHost(r, lang);
  const brand = impersonated ?? host.split(/[.-]/)[0]!.replace(/\d/g, "");
  const c: Ctx = { brand, brandDomain: host, spamHost: host, first, last, other: pick(r, FIRST), lang };
  const link = () => spamLink(r, host);
  let family: string;
  let subject: string;
  let paragraphs: string[];
  let sender: string;
  let kind: string;
  if (!intl) {
    family = pick(r, Object.keys(SPAM_EN));
    const f = SPAM_EN[family]!;
    kind = f.kind;
    sender = fill(r, pick(r, f.senders), c, link);
    subject = fill(r, pick(r, f.subjects), c, link);
    if (r() < 0.1) subject = subject.toUpperCase();
    if (r() < 0.1) subject = `${pick(r, ["Re: ", "RE: ", "Fwd: ", "[URGENT] ", "⚠️ ", "✅ "])}${subject}`;
    paragraphs = [
      fill(r, pick(r, f.openers), c, link),
      ...some(r, f.pitches, 1, 4).map((p) => fill(r, p, c, link)),
      fill(r, pick(r, f.ctas), c, link),
      fill(r, pick(r, f.closers), c, link),
    ].filter(Boolean);
  } else {
    const g = pick(r, SPAM_INTL[lang]!);
    family = g.family;
    kind = "phish";
    sender = fill(r, pick(r, g.senders), c, link);
    subject = fill(r, pick(r, g.subjects), c, link);
    paragraphs = [...some(r, g.lines, 1, 4).map((p) => fill(r, p, c, link)), fill(r, pick(r, g.ctas), c, link)];
  }
  if (r() < 0.12) paragraphs = paragraphs.map((p) => (r() < 0.5 ? obfuscate(r, p) : p));
  if (r() < 0.06) subject = obfuscate(r, subject);
  const fromDomain =
    r() < 0.15
      ? pick(r, FREEMAIL)
      : r() < 0.5
        ? host.replace(/^[^.]*\.(?=[^.]+\.[^.]+$)/, "")
        : `${invent(r)}.${pick(r, [...RISKY_TLD, "com", "net"])}`;
  const local = pick(r, [
    "info",
    "support",
    "noreply",
    "service",
    "billing",
    "alert",
    "admin",
    `${first.toLowerCase()}.${last.toLowerCase()}`,
    `${invent(r)}${Math.floor(r() * 999)}`,
  ]);
  const headers: [string, string][] = [header("From", `"${sender}" <${local}@${fromDomain}>`), header("Subject", subject)];
  if (r() < 0.2) headers.push(header("Reply-To", `${first.toLowerCase()}${Math.floor(r() * 99)}@${pick(r, FREEMAIL)}`));
  if (kind === "bulk" && r() < 0.5) headers.push(header("List-Unsubscribe", `<https://${host}/unsub?u=${Math.floor(r() * 1e6)}>`));
  if (r() < 0.25)
    headers.push(
      header(
        "X-Mailer",
        pick(r, [
          "PHPMailer 6.8.1",
          "Microsoft Outlook 16.0",
          "Sendinblue",
          "MailChimp Mailer",
          "Apple Mail (2.3731)",
          "Mozilla Thunderbird",
        ]),
      ),
    );
  const asHtml = r() < 0.45;
  if (asHtml) {
    headers.push(header("Content-Type", "text/html"));
    const imageHeavy = r() < 0.2;
    const body = html(r, imageHeavy && r() < 0.5 ? paragraphs.slice(-2) : paragraphs, imageHeavy, (url) =>
      r() < 0.3
        ? `https://www.${impersonated ?? invent(r)}.com/${pick(r, SEC_WORDS)}`
        : pick(r, [
            "Click here",
            "Verify now",
            "View document",
            "Open",
            "Pay now",
            "Sign in",
            "Track parcel",
            "Claim",
            "Learn more",
            "Review",
          ]),
    );
    return { id: `cs${i}`, label: "spam", family, language: lang, headers, body, file: "composed" };
  }
  return { id: `cs${i}`, label: "spam", family, language: lang, headers, body: paragraphs.join("\n\n"), file: "composed" };
}

const BRAND_HAM_DOMAINS: Record<string, string> = {
  microsoft: "microsoft.com",
  paypal: "paypal.com",
  amazon: "amazon.com",
  apple: "apple.com",
  netflix: "netflix.com",
  dhl: "dhl.com",
  google: "google.com",
  dropbox: "dropbox.com",
  docusign: "docusign.net",
  coinbase: "coinbase.com",
  linkedin: "linkedin.com",
  spotify: "spotify.com",
  steam: "steampowered.com",
  revolut: "revolut.com",
  adobe: "adobe.com",
  ups: "ups.com",
  icloud: "icloud.com",
};

export function composeHam(r: R, i: number): CorpusRecord {
  const intl = r() < 0.3;
  const lang = intl ? pick(r, Object.keys(HAM_INTL)) : "en";
  const first = pick(r, FIRST);
  const last = pick(r, LAST);
  const useBig = r() < 0.3;
  const bigName = pick(r, Object.keys(BRAND_HAM_DOMAINS));
  const brand = useBig ? bigName : invent(r);
  const brandDomain = useBig ? BRAND_HAM_DOMAINS[bigName]! : `${brand}.${pick(r, SAFE_TLD)}`;
  const c: Ctx = { brand, brandDomain, spamHost: brandDomain, first, last, other: pick(r, FIRST), lang };
  const link = () =>
    `https://${pick(r, ["www.", "", "click.", "email.", "links.", "app."])}${brandDomain}/${pick(r, ["r", "offer", "article", "account", "settings", "p"])}/${Math.floor(r() * 1e8).toString(36)}`;
  let family: string;
  let subject: string;
  let paragraphs: string[];
  let sender: string;
  let list = false;
  if (!intl) {
    family = pick(r, Object.keys(HAM_EN));
    const f = HAM_EN[family]!;
    list = !!f.list;
    sender = fill(r, pick(r, f.senders), c, link);
    subject = fill(r, pick(r, f.subjects), c, link);
    paragraphs = [fill(r, pick(r, f.openers), c, link), ...some(r, f.lines, 2, 6).map((p) => fill(r, p, c, link))];
    if (["newsletter", "vendor-marketing", "job-alert"].includes(family)) paragraphs.push(link());
    paragraphs.push(fill(r, pick(r, f.closers), c, link));
    paragraphs = paragraphs.filter(Boolean);
  } else {
    const g = pick(r, HAM_INTL[lang]!);
    family = g.family;
    list = !!g.list;
    sender = fill(r, pick(r, g.senders), c, link);
    subject = fill(r, pick(r, g.subjects), c, link);
    paragraphs = some(r, g.lines, 1, 4).map((p) => fill(r, p, c, link));
    if (list || r() < 0.3) paragraphs.push(link());
  }
  const personal = ["work-reply", "personal", "cold-business", "invoice-genuine", "calendar", "community"].includes(family);
  const fromDomain = personal ? (r() < 0.25 ? pick(r, FREEMAIL) : `${invent(r)}.${pick(r, SAFE_TLD)}`) : brandDomain;
  const local = personal
    ? `${first.toLowerCase()}.${last.toLowerCase()}`
    : pick(r, ["noreply", "no-reply", "news", "hello", "receipts", "orders", "team", "notifications", "billing"]);
  const headers: [string, string][] = [header("From", `"${sender}" <${local}@${fromDomain}>`), header("Subject", subject)];
  if (list && r() < 0.9) headers.push(header("List-Unsubscribe", `<https://${brandDomain}/unsubscribe?u=${Math.floor(r() * 1e6)}>`));
  if (list && r() < 0.5) headers.push(header("List-Id", `<${pick(r, ["news", "weekly", "updates"])}.${brandDomain}>`));
  if (r() < 0.2)
    headers.push(
      header(
        "X-Mailer",
        pick(r, ["Microsoft Outlook 16.0", "Apple Mail (2.3731)", "Mozilla Thunderbird", "Mailchimp Mailer", "Postmark", "Amazon SES"]),
      ),
    );
  if (family === "work-reply" && r() < 0.6) {
    paragraphs.push(
      `On ${pick(r, ["Tue", "Mon", "Wed"])}, ${c.other} wrote:\n> ${fill(r, pick(r, HAM_EN["work-reply"]!.lines), c, link)}\n> ${fill(r, pick(r, HAM_EN["work-reply"]!.lines), c, link)}`,
    );
  }
  if (personal && r() < 0.4)
    paragraphs.push(
      `--\n${first} ${last}\n${cap(invent(r))} ${pick(r, ["Ltd", "GmbH", "SAS", "Inc.", "BV"])}\n${pick(r, ["+44 113 496 0321", "+49 30 1234567", "+33 1 23 45 67 89", "(555) 010-4477"])}`,
    );
  const asHtml = !personal && r() < 0.6;
  if (asHtml) {
    headers.push(header("Content-Type", "text/html"));
    const imageHeavy = family === "vendor-marketing" && r() < 0.4;
    return {
      id: `ch${i}`,
      label: "ham",
      family,
      language: lang,
      headers,
      body: html(r, paragraphs, imageHeavy, () =>
        pick(r, ["Read more", "Shop now", "View order", "Manage preferences", "Unsubscribe", "Open in app", brandDomain]),
      ),
      file: "composed",
    };
  }
  return { id: `ch${i}`, label: "ham", family, language: lang, headers, body: paragraphs.join("\n\n"), file: "composed" };
}

export function composeSlice(n: number, seed: number): CorpusRecord[] {
  const r = rng(seed);
  const out: CorpusRecord[] = [];
  for (let i = 0; i < n; i++) out.push(r() < 0.45 ? composeSpam(r, i) : composeHam(r, i));
  return out;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { n: { type: "string", default: "4000" }, seed: { type: "string", default: "1" }, out: { type: "string" } },
  });
  const slice = composeSlice(Number(values.n), Number(values.seed));
  const text = slice.map((m) => JSON.stringify(m)).join("\n");
  if (values.out) writeFileSync(values.out, `${text}\n`);
  else for (const m of slice.slice(0, 6)) console.log(JSON.stringify(m, null, 1));
}
