// Look-alike letters folded to the Latin ones they imitate, in words that mix scripts: an
// attacker writes "Аsistentulе АI" with Cyrillic А and е so that phrase rules reading the raw
// text miss it. The table (src/mail/lookalike-letters.ts) lists the Greek and Cyrillic letters
// that render like a Latin letter.
// Only words that mix a look-alike with Latin letters are folded, and, on a line holding such a
// word, words made only of look-alikes when the line reads as Latin; Greek and Russian mail,
// whose words are all of their own script, stay as written.

import { LATIN_LOOKALIKES as LOOKALIKE } from "../../mail/lookalike-letters.ts";

const MAX_TEXT = 100_000;

type Script = "latin" | "lookalike" | "other" | "none";
function scriptOf(ch: string): Script {
  const c = ch.codePointAt(0) ?? 0;
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7)) return "latin";
  if (LOOKALIKE[ch] !== undefined) return "lookalike";
  if ((c >= 0x370 && c <= 0x3ff) || (c >= 0x400 && c <= 0x52f)) return "other"; // Greek or Cyrillic, no Latin twin
  return "none";
}

const isWordChar = (ch: string) => scriptOf(ch) !== "none" || /[\p{L}\p{M}\p{N}]/u.test(ch);

/** The text with look-alikes in mixed-script words folded to Latin; the same string when none. */
export function latinSkeleton(text: string): string {
  const head = text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text; // bounded; the rest unread
  let any = false;
  for (let i = 0; i < head.length && !any; i++) {
    const c = head.charCodeAt(i);
    if (c >= 0x370 && c <= 0x52f) any = true;
  }
  if (!any) return text;
  const lines = head.split("\n");
  let changed = false;
  for (let n = 0; n < lines.length; n++) {
    const folded = foldLine(lines[n]);
    if (folded !== lines[n]) {
      lines[n] = folded;
      changed = true;
    }
  }
  return changed ? lines.join("\n") + text.slice(head.length) : text;
}

type Word = { start: number; end: number; latin: number; look: number; other: number };

function foldLine(line: string): string {
  const chars = Array.from(line);
  const words: Word[] = [];
  let cur: Word | null = null;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (!isWordChar(ch)) {
      if (cur !== null) words.push(cur);
      cur = null;
      continue;
    }
    if (cur === null) cur = { start: i, end: i, latin: 0, look: 0, other: 0 };
    cur.end = i + 1;
    const s = scriptOf(ch);
    if (s === "latin") cur.latin++;
    else if (s === "lookalike") cur.look++;
    else if (s === "other") cur.other++;
  }
  if (cur !== null) words.push(cur);
  const mixed = words.filter((w) => w.look > 0 && w.latin > 0 && w.other === 0);
  if (mixed.length === 0) return line;
  // A line that reads as Latin: more Latin-only or mixed words than words of Greek or Cyrillic
  // letters with no Latin twin.
  const latinish = words.filter((w) => w.latin > 0).length;
  const native = words.filter((w) => w.other > 0).length;
  const foldPure = latinish > native;
  for (const w of words) {
    const fold = w.other === 0 && w.look > 0 && (w.latin > 0 || foldPure);
    if (!fold) continue;
    for (let i = w.start; i < w.end; i++) chars[i] = LOOKALIKE[chars[i]] ?? chars[i];
  }
  return chars.join("");
}
