// Splits text into folded word tokens that keep offsets into the original, so families match
// disguised spellings (Cyrillic look-alikes, fullwidth, leetspeak) while evidence quotes what
// the sender actually wrote. One pass over the text; no regular expressions on it.

export type Token = {
  w: string; // folded word: lower case, no diacritics, look-alikes mapped to Latin
  alt: string; // leetspeak reading ("1gn0re" → "ignore"), "" when the word has no digits
  start: number;
  end: number;
  brk: boolean; // a sentence boundary precedes this token
  punct: string; // first non-blank character after the token when it is not a word character
  link: boolean; // a whole URL or email address, w is "<url>" or "<email>"
  conf: boolean; // has a look-alike letter from another script or a compatibility form
  mixed: boolean; // look-alikes next to plain ASCII letters in one word
  obf: boolean; // set by the annotator when a disguise changed what the word means
  cls: number; // lexicon classes, set by the annotator
};

export type Span = { start: number; end: number; kind: "url" | "email" };

// Letters from other scripts that render like Latin ones.
const CONFUSABLE: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  і: "i",
  ї: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  һ: "h",
  ӏ: "l",
  ɡ: "g",
  ı: "i",
  ɑ: "a",
  α: "a",
  ο: "o",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ς: "s",
};
const LIGATURE: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", þ: "th", ð: "d" };
const LEET: Record<string, string> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "9": "g",
  "@": "a",
  $: "s",
  "|": "l",
};

type Folded = { s: string; conf: boolean } | null; // null: not part of a word
const foldCache = new Map<number, Folded>();

function foldNonAscii(cp: number): Folded {
  const cached = foldCache.get(cp);
  if (cached !== undefined) return cached;
  const ch = String.fromCodePoint(cp);
  const lower = ch.toLowerCase();
  let result: Folded = null;
  if (CONFUSABLE[lower] !== undefined) result = { s: CONFUSABLE[lower], conf: true };
  else if (LIGATURE[lower] !== undefined) result = { s: LIGATURE[lower], conf: false };
  else if (/\p{M}/u.test(ch)) result = { s: "", conf: false };
  else {
    const canonical = ch.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
    const compat = ch.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
    if (/^[a-z0-9]+$/.test(compat)) result = { s: compat, conf: compat !== canonical };
    else if (/[\p{L}\p{N}]/u.test(ch)) result = { s: lower, conf: false };
  }
  if (foldCache.size < 20_000) foldCache.set(cp, result);
  return result;
}

function foldAt(text: string, i: number): Folded {
  const code = text.charCodeAt(i);
  if (code < 128) {
    if (isAsciiAlnum(code))
      return code >= 65 && code <= 90 ? { s: String.fromCharCode(code + 32), conf: false } : { s: text[i], conf: false };
    return null;
  }
  return foldNonAscii(text.codePointAt(i) ?? code);
}

const isAsciiAlnum = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
const isAsciiLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const wordAt = (text: string, i: number) => i < text.length && foldAt(text, i) !== null;
const letterAt = (text: string, i: number) => {
  if (i >= text.length) return false;
  const f = foldAt(text, i);
  return f !== null && f.s !== "" && !/^[0-9]+$/.test(f.s);
};

// French and Italian elide a one-letter word ("l'utilisateur"): split there, join elsewhere
// ("don't" → "dont", "user's" → "users").
const ELIDED = new Set(["l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "quelqu"]);
const APOSTROPHES = new Set(["'", "\u2019", "\u02bc"]);

function leetReading(w: string): string {
  let out = "";
  for (const ch of w) out += LEET[ch] ?? ch;
  return out;
}

export function tokenize(text: string, links: Span[] = findLinks(text)): Token[] {
  const out: Token[] = [];
  let w = ""; // folded part of the current word
  let plain = -1; // start of a pending run of ASCII letters and digits, appended lower-cased
  let start = -1;
  let conf = false;
  let native = false;
  let leet = false; // has a digit or @ $ |: may be leetspeak
  let brk = true;
  let newlines = 0;
  let awaiting: Token | null = null; // last token whose following punctuation is not known yet
  let li = 0;
  let nextLink = links.length > 0 ? links[0].start : Number.POSITIVE_INFINITY;
  // Lower-case once; per-word slices of it are cheap. Some letters change length when
  // lower-cased (İ), and then each word is lower-cased on its own to keep offsets right.
  const whole = text.toLowerCase();
  const lower = whole.length === text.length ? whole : null;

  const push = (t: Token) => {
    out.push(t);
    awaiting = t;
    brk = false;
  };
  const closePlain = (i: number) => {
    if (plain < 0) return;
    const part = lower !== null ? lower.slice(plain, i) : text.slice(plain, i).toLowerCase();
    w = w === "" ? part : w + part;
    plain = -1;
  };
  const flush = (end: number) => {
    closePlain(end);
    if (w === "") return;
    const last = text.charCodeAt(end - 1); // "@", "$", "|" only count inside a word
    const word = last === 64 || last === 36 || last === 124 ? w.replace(/[@$|]+$/, "") : w;
    if (word !== "") {
      push({
        w: word,
        alt: leet && native ? leetReading(word) : "",
        start,
        end,
        brk,
        punct: "",
        link: false,
        conf,
        mixed: conf && native,
        obf: false,
        cls: 0,
      });
    }
    w = "";
    conf = false;
    native = false;
    leet = false;
  };

  let i = 0;
  const n = text.length;
  while (i < n) {
    if (i >= nextLink) {
      const link = links[li];
      flush(i);
      push({
        w: link.kind === "url" ? "<url>" : "<email>",
        alt: "",
        start: link.start,
        end: link.end,
        brk,
        punct: "",
        link: true,
        conf: false,
        mixed: false,
        obf: false,
        cls: 0,
      });
      i = Math.max(i, link.end);
      li++;
      nextLink = li < links.length ? links[li].start : Number.POSITIVE_INFINITY;
      newlines = 0;
      continue;
    }
    const code = text.charCodeAt(i);
    if (isAsciiAlnum(code)) {
      if (plain < 0) {
        if (w === "") start = i;
        plain = i;
      }
      if (code >= 65) native = true;
      else leet = true;
      newlines = 0;
      awaiting = null;
      i++;
      continue;
    }
    if (code >= 128) {
      const cp = text.codePointAt(i) ?? code;
      const size = cp > 0xffff ? 2 : 1;
      if ((cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x3400 && cp <= 0x9fff) || (cp >= 0xf900 && cp <= 0xfaff)) {
        // Kana and Han are written without spaces: each character is a token, so word pairs
        // become character pairs, which is how such text is usually split.
        flush(i);
        push({
          w: text.slice(i, i + size),
          alt: "",
          start: i,
          end: i + size,
          brk,
          punct: "",
          link: false,
          conf: false,
          mixed: false,
          obf: false,
          cls: 0,
        });
        newlines = 0;
        i += size;
        continue;
      }
      const f = foldNonAscii(cp);
      if (f !== null) {
        closePlain(i);
        if (w === "") start = i;
        w += f.s;
        if (f.conf) conf = true;
        newlines = 0;
        awaiting = null;
        i += size;
        continue;
      }
    }
    if (code === 32) {
      flush(i);
      i++;
      continue;
    }
    const ch = text[i];
    const inWord = plain >= 0 || w !== "";
    if (APOSTROPHES.has(ch) && inWord && letterAt(text, i + 1)) {
      closePlain(i);
      if (ELIDED.has(w)) flush(i + 1);
      i += 1;
      continue;
    }
    if (ch === "_" && inWord && wordAt(text, i + 1)) {
      closePlain(i);
      w += "_";
      i += 1;
      continue;
    }
    if ((ch === "@" || ch === "$" || ch === "|") && (inWord ? wordAt(text, i + 1) : letterAt(text, i + 1))) {
      closePlain(i);
      if (w === "") start = i;
      w += ch;
      leet = true;
      i += 1;
      continue;
    }
    flush(i);
    if (code === 10) {
      newlines++;
      if (newlines >= 2) brk = true;
    } else if (code !== 32 && code !== 9 && code !== 13) {
      newlines = 0;
      if (awaiting !== null) {
        (awaiting as Token).punct = ch;
        awaiting = null;
      }
      if (ch === "!" && text[i + 1] === "[") {
        // a markdown image ("![x](...)") continues its sentence
      } else if (ch === "!" || ch === "?" || ch === ";" || ch === "\u3002" || ch === "\uff01" || ch === "\uff1f") brk = true;
      else if (ch === "." && (i + 1 >= n || /[\s"')\]]/.test(text[i + 1]))) brk = true;
    }
    i += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  }
  flush(n);
  return out;
}

const URL_STOP = new Set([" ", "\t", "\n", "\r", '"', "'", "`", ")"]);
const isDomainChar = (c: number) => isAsciiAlnum(c) || c === 46 || c === 45;
const isLocalChar = (c: number) => isDomainChar(c) || c === 95 || c === 37 || c === 43;

/** URLs and email addresses as spans, found by linear scans around "://" and "@". */
export function findLinks(text: string): Span[] {
  const spans: Span[] = [];
  let from = 0;
  for (;;) {
    const at = text.indexOf("://", from);
    if (at < 0) break;
    let s = at;
    while (s > 0 && s > at - 5 && isAsciiLetter(text.charCodeAt(s - 1))) s--;
    const scheme = text.slice(s, at).toLowerCase();
    let e = at + 3;
    while (e < text.length && !URL_STOP.has(text[e])) e++;
    while (e > at + 3 && ".,;:!?>]".includes(text[e - 1])) e--;
    if ((scheme === "http" || scheme === "https") && e > at + 3) spans.push({ start: s, end: e, kind: "url" });
    from = Math.max(e, at + 3);
  }
  let fromAt = 0;
  let si = 0;
  for (;;) {
    const at = text.indexOf("@", fromAt);
    if (at < 0) break;
    fromAt = at + 1;
    while (si < spans.length && spans[si].end <= at) si++;
    if (si < spans.length && spans[si].start <= at && spans[si].kind === "url") continue;
    let s = at;
    while (s > 0 && at - s < 64 && isLocalChar(text.charCodeAt(s - 1))) s--;
    let e = at + 1;
    while (e < text.length && e - at < 254 && isDomainChar(text.charCodeAt(e))) e++;
    while (e > at + 1 && (text[e - 1] === "." || text[e - 1] === "-")) e--;
    const domain = text.slice(at + 1, e);
    if (s < at && domain.includes(".")) spans.push({ start: s, end: e, kind: "email" });
    fromAt = Math.max(fromAt, e);
  }
  return spans.sort((a, b) => a.start - b.start).filter((span, k, all) => k === 0 || span.start >= all[k - 1].end);
}
