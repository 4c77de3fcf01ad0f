// The tokens an account's own corrections are counted over (src/core/screening/feedback.ts) and looked up
// when its later mail is screened (adjust.ts): words of the subject and the clean body, subject
// words marked as such, the sender's registrable domain, and character pairs of Chinese and
// Japanese text (written without spaces). Function words of the common languages are left out:
// every message has them, so they tell one kind of mail from another not at all. Each token is
// stored as a 52-bit hash (it fits a JavaScript number and a Postgres bigint exactly); the text
// itself is never stored.
import { getDomain } from "tldts";

const MAX_TOKENS = 600;

const STOP = new Set(
  (
    "the and for are but not you your with this that from have has was were will would could should can our out all any " +
    "about into over than then them they their there here what when where which who whom why how its it's his her she him " +
    "les des une est pas que qui pour dans par sur avec vous nous ont aux ces son ses mais plus tout bien " +
    "der die das und ist nicht ein eine einen dem den des mit von für auf sie wir ihr ihre sind auch bei wie noch " +
    "los las una por con para del que como pero sus este esta son muy " +
    "il lo la gli che per con non una sono del della questo questa " +
    "het een van dat niet zijn voor met ook aan " +
    "uma com não por para que dos das " +
    "http https www com html"
  ).split(" "),
);

/** FNV-1a over UTF-16 units, two lanes, folded into 52 bits. */
export function tokenHash(token: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ token.length;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return (a % 0x100000) * 0x100000000 + b;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]{1,40}/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{2,}/gu;

function words(text: string): string[] {
  const out: string[] = [];
  const lower = text.normalize("NFKC").toLowerCase();
  for (const m of lower.matchAll(WORD)) {
    const w = m[0]
      .normalize("NFD")
      .replace(/\p{M}/gu, "")
      .replace(/['’-]+$/, "");
    if (w.length < 3 || w.length > 30 || STOP.has(w) || /^\d+$/.test(w)) continue;
    out.push(w);
  }
  for (const m of lower.matchAll(CJK)) for (let i = 0; i + 1 < m[0].length; i++) out.push(m[0].slice(i, i + 2));
  return out;
}

export type LearningInput = { subject: string; body: string; fromAddr: string };

/** The message's distinct token hashes, at most MAX_TOKENS (subject and sender first). */
export function learningTokens(input: LearningInput): number[] {
  const tokens = new Set<string>();
  const domain = getDomain(input.fromAddr.slice(input.fromAddr.lastIndexOf("@") + 1).toLowerCase());
  if (domain) tokens.add(`from:${domain}`);
  for (const w of words(input.subject)) tokens.add(`subject:${w}`);
  for (const w of words(input.subject)) tokens.add(w);
  for (const w of words(input.body.slice(0, 50_000))) {
    if (tokens.size >= MAX_TOKENS) break;
    tokens.add(w);
  }
  return [...tokens].map(tokenHash);
}
