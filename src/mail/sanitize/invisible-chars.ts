// Removes characters a human reader cannot see but an LLM still reads: zero-width
// characters, bidi controls, Unicode tags, control and format characters, private use,
// and variation-selector runs (the known ways to smuggle instructions inside text).

export type InvisibleCounts = {
  zero_width_chars: number;
  bidi_controls: number;
  unicode_tags: number;
  other_invisible: number;
};

export function emptyInvisibleCounts(): InvisibleCounts {
  return { zero_width_chars: 0, bidi_controls: 0, unicode_tags: 0, other_invisible: 0 };
}

// A subdivision flag (England, Scotland, Wales) is a black flag followed by tag letters and
// a cancel tag: legitimate, so it is matched whole and kept.
const FLAG_SEQUENCE = "\\u{1F3F4}[\\u{E0030}-\\u{E0039}\\u{E0061}-\\u{E007A}]{2,7}\\u{E007F}";

// Everything that may be removed or rewritten. Plain space, \t and \n are left out so ordinary
// text never reaches the callback.
const CANDIDATES =
  "[\\0-\\x08\\x0B-\\x1F\\x7F-\\x9F\\p{Cf}\\p{Co}\\p{Cs}\\u00A0\\u1680\\u2000-\\u200A\\u202F" +
  "\\u205F\\u3000\\u2028\\u2029\\u034F\\u115F\\u1160\\u17B4\\u17B5\\u3164\\uFFA0\\uFE00-\\uFE0F" +
  "\\u{E0100}-\\u{E01EF}\\uFDD0-\\uFDEF\\uFFFE\\uFFFF" +
  // Whole blocks, so that their unassigned code points (not Cf) go too.
  "\\u2060-\\u206F\\u{E0000}-\\u{E007F}]";

const PATTERN = new RegExp(`${FLAG_SEQUENCE}|${CANDIDATES}`, "gu");

const ZERO_WIDTH = new Set([
  0x00ad, 0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180e, 0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x3164, 0xfeff,
  0xffa0,
]);
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const VISIBLE_BASE = /[\p{L}\p{N}\p{S}\p{P}\p{M}]/u;

function isBidiControl(cp: number): boolean {
  return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f || cp === 0x061c;
}

function isVariationSelector(cp: number): boolean {
  return (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
}

function codePointBefore(s: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const low = s.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = s.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return s.codePointAt(index - 2);
  }
  return low;
}

// A single variation selector right after a visible character is how emoji and CJK variants
// are written; a run of them, or one after nothing visible, is how payloads are encoded.
function keepsVariationSelector(s: string, offset: number): boolean {
  const prev = codePointBefore(s, offset);
  if (prev === undefined || isVariationSelector(prev) || prev === 0x034f) return false;
  return VISIBLE_BASE.test(String.fromCodePoint(prev));
}

// ZWJ joins emoji into one glyph (family, profession emoji): keep it between pictographs.
function keepsZeroWidthJoiner(s: string, offset: number): boolean {
  let before = offset;
  let prev = codePointBefore(s, before);
  // Skip one presentation selector or skin-tone modifier between the emoji and the joiner.
  if (prev !== undefined && (prev === 0xfe0f || (prev >= 0x1f3fb && prev <= 0x1f3ff))) {
    before -= prev > 0xffff ? 2 : 1;
    prev = codePointBefore(s, before);
  }
  const next = s.codePointAt(offset + 1);
  if (prev === undefined || next === undefined) return false;
  return PICTOGRAPHIC.test(String.fromCodePoint(prev)) && PICTOGRAPHIC.test(String.fromCodePoint(next));
}

/**
 * Returns `text` without invisible characters, adding one to the matching category of
 * `counts` per character removed. Line separators become "\n" and exotic spaces a plain space
 * (visible, so not counted); a byte-order mark at the very start is dropped without counting.
 */
export function stripInvisible(text: string, counts: InvisibleCounts = emptyInvisibleCounts()): string {
  const normalized = text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
  return normalized.replace(PATTERN, (match: string, offset: number, whole: string) => {
    if (match.length > 2) return match; // a subdivision flag
    const cp = match.codePointAt(0) ?? 0;
    if (cp === 0x2028 || cp === 0x2029 || cp === 0x85 || cp === 0x0c) return "\n";
    if (cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x202f || cp === 0x205f || cp === 0x3000) {
      return " ";
    }
    if (cp === 0xfeff && offset === 0) return "";
    if (cp === 0x200d && keepsZeroWidthJoiner(whole, offset)) return match;
    if (isVariationSelector(cp) && keepsVariationSelector(whole, offset)) return match;
    if (ZERO_WIDTH.has(cp)) counts.zero_width_chars++;
    else if (isBidiControl(cp)) counts.bidi_controls++;
    else if (cp >= 0xe0000 && cp <= 0xe007f) counts.unicode_tags++;
    else counts.other_invisible++;
    return "";
  });
}
