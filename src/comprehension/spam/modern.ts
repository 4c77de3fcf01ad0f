// Features for mail as it is written now, beyond word tokens (issue 28): character n-grams for
// scripts written without spaces, link text versus link target, lookalike and invented brand
// domains, payment / urgency / credential / threat / prize cues in several languages,
// obfuscation (look-alike letters from other scripts, zero-width characters, spaced letters,
// mathematical letters), image-heavy HTML with little text, and list headers. Every feature is
// a presence token like the rest; the model (classifier.ts) fits its weight.
import type { AddressObject, ParsedMail } from "mailparser";
import { bucket, registrable } from "./shapes.ts";

const MAX_SCAN = 100_000;

// Brands phishing borrows most. A host naming one outside the brand's own registrable domain
// is a lookalike ("paypal-secure.help", "dhl.com.track-parcel.top").
const BRANDS: Record<string, string[]> = {
  microsoft: ["microsoft.com", "office.com", "live.com", "outlook.com", "sharepoint.com", "onedrive.com"],
  office365: ["microsoft.com", "office.com"],
  outlook: ["outlook.com", "microsoft.com", "live.com"],
  onedrive: ["onedrive.com", "microsoft.com", "live.com"],
  sharepoint: ["sharepoint.com", "microsoft.com"],
  paypal: ["paypal.com", "paypal.de", "paypal.co.uk", "paypal.fr", "paypal.me"],
  amazon: [
    "amazon.com",
    "amazon.co.uk",
    "amazon.de",
    "amazon.fr",
    "amazon.es",
    "amazon.it",
    "amazon.co.jp",
    "amazonaws.com",
    "amazon.nl",
    "amazon.pl",
  ],
  apple: ["apple.com", "icloud.com"],
  icloud: ["icloud.com", "apple.com"],
  netflix: ["netflix.com"],
  dhl: ["dhl.com", "dhl.de"],
  fedex: ["fedex.com"],
  ups: ["ups.com"],
  usps: ["usps.com"],
  docusign: ["docusign.net", "docusign.com"],
  dropbox: ["dropbox.com"],
  google: ["google.com", "gmail.com", "youtube.com"],
  coinbase: ["coinbase.com"],
  binance: ["binance.com"],
  metamask: ["metamask.io"],
  chase: ["chase.com"],
  wellsfargo: ["wellsfargo.com"],
  hsbc: ["hsbc.com", "hsbc.co.uk"],
  santander: ["santander.com", "santander.co.uk", "santander.es"],
  adobe: ["adobe.com"],
  wetransfer: ["wetransfer.com"],
  spotify: ["spotify.com"],
  instagram: ["instagram.com"],
  facebook: ["facebook.com", "facebookmail.com"],
  linkedin: ["linkedin.com"],
  revolut: ["revolut.com"],
  sparkasse: ["sparkasse.de"],
  posteitaliane: ["poste.it", "posteitaliane.it"],
  correos: ["correos.es"],
  laposte: ["laposte.fr", "laposte.net"],
  postnl: ["postnl.nl"],
  royalmail: ["royalmail.com"],
  hmrc: ["gov.uk"],
  irs: ["irs.gov"],
  norton: ["norton.com"],
  mcafee: ["mcafee.com"],
  steam: ["steampowered.com", "steamcommunity.com"],
};
const FREEMAIL =
  /^(gmail|googlemail|outlook|hotmail|live|yahoo|ymail|aol|gmx|mail|proton|protonmail|icloud|yandex|qq|163|126|web|libero|orange|wanadoo)\.[a-z.]+$/;
const SHORTENERS = /^(bit\.ly|tinyurl\.com|t\.co|is\.gd|cutt\.ly|rb\.gy|ow\.ly|shorturl\.at|t\.ly|tiny\.cc|goo\.gl|rebrand\.ly)$/;
const RISKY_TLDS = new Set([
  "top",
  "xyz",
  "icu",
  "shop",
  "click",
  "live",
  "online",
  "site",
  "cc",
  "buzz",
  "rest",
  "monster",
  "support",
  "help",
  "life",
  "store",
  "cfd",
  "sbs",
  "bond",
  "work",
  "loan",
  "win",
  "vip",
  "pro",
  "ru",
  "cn",
  "tk",
  "ml",
  "ga",
  "cf",
  "gq",
]);
const SECURITY_WORDS =
  /(secure|verify|verif|login|log-in|signin|sign-in|account|billing|update|confirm|auth|portal|refund|wallet|recovery|unlock|support|service|notice|alert|track|redeliver|customs|claim)/;

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
  if (SHORTENERS.test(host)) out.add(`${prefix}:shortener`);
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
const CUES: Record<string, RegExp> = {
  urgency:
    /\b(urgent|urgently|immediately|asap|within \d+ ?(hours?|h|days?)|final (notice|reminder|warning)|last chance|expires? (today|soon|in)|act now|don't miss|today only|before midnight|limited time|only \d+ (spots|places|seats)|sofort|umgehend|dringend|innerhalb von \d+|immédiatement|dernier (avis|rappel)|urgente|inmediato|de inmediato|últim[oa] aviso|entro \d+ ore|subito|imediatamente|binnen \d+ uur|natychmiast|срочно|немедленно|в течение \d+|acil|hemen|omedelbart)|至急|今すぐ|期限|立即|马上|尽快|紧急|즉시|긴급/i,
  payment:
    /\b(pay|payment|fee|invoice|overdue|unpaid|outstanding balance|remittance|wire|transfer|bank details|iban|gift card|bitcoin|btc|usdt|crypto|wallet|deposit|refund|charged|zahlung|gebühr|rechnung|überweisung|paiement|frais|facture|virement|pago|tasa|factura|pagamento|taxa|betaal|betaling|factuur|opłat|płatność|faktura|оплат|платеж|счет|перевод|ödeme|ücret|fatura|betala|avgift)|支払|料金|振込|付款|支付|费用|转账|결제|입금|دفع|رسوم/i,
  credentials:
    /\b(verify|verification required|confirm your (identity|details|account|email)|sign in|log ?in|password|credentials|seed phrase|account (will be|has been|is) (suspended|locked|limited|closed|disabled)|update your (payment|details|information)|re-?activate|bestätigen sie|verifizieren|anmelden|vérifi|connectez|identifiant|verifique|confirme sus|inicie sesión|verifica|accedi|confirme seus|verifiëren|inloggen|zweryfikuj|zaloguj|подтверд|войти|doğrula|giriş yap|verifiera|logga in)|本人確認|ログイン|验证|登录|인증|로그인|تأكيد/i,
  threat:
    /\b(suspend|suspended|locked|blocked|terminated|deactivat|deleted|permanently|collections?|legal action|police|returned to (the )?sender|late fee|penalt|gesperrt|deaktiviert|zurückgesendet|suspendu|bloqué|fermé|retourné|bloquead|suspendid|devuelto|sospes|bloccat|bloquead|devolvid|geblokkeerd|zablokowan|zwrócon|заблокир|askıya|kapatılacak|spärrat|returneras)|停止|凍結|冻结|封号|退回|정지|차단|إيقاف/i,
  prize:
    /\b(congratulations|you('ve| have) (won|been selected|been chosen)|winner|lottery|prize|reward|claim (your|now)|airdrop|giveaway|beneficiary|free (iphone|gift)|gewonnen|gewinner|gagné|gagnant|ganador|ha ganado|premio|vinto|prêmio|ganhou|gewonnen|wygrał|выиграл|приз|kazandınız|ödül|vunnit)|当選|中奖|恭喜|당첨/i,
  // Amounts are short: an unbounded [\d.,]* tried from every digit of a long run is quadratic.
  money: /(?:[$€£¥₽₺]\s?\d|\d[\d.,]{0,24}\s?(?:usd|eur|gbp|usdt|btc|eth|€|zł|₽|tl|kr|円|元|원|درهم)\b|\b\d+(?:[.,]\d+)?\s?%)/i,
  offmail: /\b(whatsapp|telegram|signal app|wechat|微信|line id|viber)\b/i,
};

export function cueTokens(text: string, out: Set<string>): void {
  const present: string[] = [];
  const sample = text.slice(0, MAX_SCAN);
  for (const [name, re] of Object.entries(CUES)) if (re.test(sample)) present.push(name);
  for (const p of present) out.add(`cue:${p}`);
  for (let i = 0; i < present.length; i++) for (let j = i + 1; j < present.length; j++) out.add(`cue:${present[i]}+${present[j]}`);
  out.add(`cue:n:${present.length}`);
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
