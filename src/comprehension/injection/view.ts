// Windowed lookups over annotated tokens for the family matchers. Every search is bounded by a
// small window and stops at a sentence boundary, so matching stays linear in the text length.

import { C } from "./lexicon.ts";
import type { Token } from "./text.ts";

export type Hit = { name: string; weight: number; start: number; end: number };

const QUOTES = new Set(['"', "\u201c", "\u201d", "\u00ab", "\u00bb", "\u201e"]);
// Corner brackets quote in Chinese and Japanese. Only the rules read them as quotation: the learned
// stage was trained without them (features.ts calls quotedTokens with the defaults).
const CJK_OPEN = new Set(["\u300c", "\u300e"]);
const CJK_CLOSE = new Set(["\u300d", "\u300f"]);
const FENCE_LINE = /^(?:[ \t]{0,3}>){0,4}[ \t]{0,3}```/;
const SINGLE = new Set(["'", "\u2018", "\u2019"]);
const OPENS_AFTER = /[\s([:]/; // a single quote opens after a space, bracket or colon ...
const CLOSES_BEFORE = /[\s.,;:!?)\]]/; // ... and closes before one; inside a word it is an apostrophe

export class View {
  readonly sentence: number[]; // sentence number of each token
  private readonly framed: boolean[]; // per sentence: written as third-person discussion
  readonly quoted: boolean[]; // per token: quoted, code or a "> " reply line (quotedTokens below)
  readonly replyLine: boolean[]; // per token: on a "> " line of an earlier message
  readonly inline: boolean[]; // per token: inside quotes or code, a "> " line or not

  constructor(
    readonly t: Token[],
    readonly text: string,
    readonly hits: Hit[] = [],
  ) {
    this.sentence = new Array(t.length);
    this.framed = [];
    this.quoted = quotedTokens(t, text, { reply: true, cjk: true });
    this.replyLine = replyLineTokens(t, text);
    this.inline = quotedTokens(t, text, { reply: false, cjk: true });
    let s = -1;
    for (let i = 0; i < t.length; i++) {
      if (i === 0 || (t[i].brk && !afterExampleAbbreviation(text, t[i].start))) {
        s++;
        this.framed.push(false);
      }
      this.sentence[i] = s;
      if ((t[i].cls & C.FRAME) !== 0) this.framed[s] = true;
    }
    this.frameShownBlocks();
  }

  // "Slide 4 shows a real example we received:\n> SYSTEM: ...": a framed sentence ending in a
  // colon at the end of its line introduces the block quoted more deeply below it, which is then
  // discussion too.
  private frameShownBlocks(): void {
    if (!this.text.includes(">")) return;
    let depth: number[] | null = null;
    for (let i = 0; i + 1 < this.t.length; i++) {
      if (this.t[i].punct !== ":" || !this.framed[this.sentence[i]]) continue;
      if (!/^[ \t]*:[ \t]*\n/.test(this.text.slice(this.t[i].end, this.t[i].end + 12))) continue;
      depth ??= replyDepths(this.t, this.text);
      for (let k = i + 1; k < this.t.length && depth[k] > depth[i]; k++) this.framed[this.sentence[k]] = true;
    }
  }

  /** The index of the token that contains (or last starts before) a character offset. */
  tokenAt(offset: number): number {
    let lo = 0;
    let hi = this.t.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.t[mid]!.start <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  get length(): number {
    return this.t.length;
  }

  is(i: number, mask: number): boolean {
    return i >= 0 && i < this.t.length && (this.t[i].cls & mask) !== 0;
  }

  w(i: number): string {
    return i >= 0 && i < this.t.length ? this.t[i].w : "";
  }

  /** First token after i, at most `max` ahead in the same sentence, matching the mask or test. */
  next(i: number, max: number, match: number | ((k: number) => boolean)): number {
    const end = Math.min(this.t.length - 1, i + max);
    for (let k = i + 1; k <= end && this.sentence[k] === this.sentence[i]; k++) {
      if (typeof match === "number" ? (this.t[k].cls & match) !== 0 : match(k)) return k;
    }
    return -1;
  }

  prev(i: number, max: number, match: number | ((k: number) => boolean)): number {
    const end = Math.max(0, i - max);
    for (let k = i - 1; k >= end && this.sentence[k] === this.sentence[i]; k--) {
      if (typeof match === "number" ? (this.t[k].cls & match) !== 0 : match(k)) return k;
    }
    return -1;
  }

  between(i: number, j: number, mask: number): boolean {
    for (let k = i + 1; k < j; k++) if ((this.t[k].cls & mask) !== 0) return true;
    return false;
  }

  nextWord(i: number, max: number, words: Set<string>): number {
    return this.next(i, max, (k) => words.has(this.t[k].w));
  }

  prevWord(i: number, max: number, words: Set<string>): number {
    return this.prev(i, max, (k) => words.has(this.t[k].w));
  }

  sentenceStart(i: number): boolean {
    return i === 0 || this.t[i].brk;
  }

  isFramed(i: number): boolean {
    return this.framed[this.sentence[i]] ?? false;
  }

  /** Records a hit spanning tokens a..b (inclusive). */
  add(name: string, weight: number, a: number, b: number = a): void {
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    this.hits.push({ name, weight: Math.min(weight, 0.95), start: this.t[lo].start, end: this.t[hi].end });
  }
}

// "e.g. `<|im_start|>`": the example belongs to the sentence that introduces it, and so does
// that sentence's framing.
function afterExampleAbbreviation(text: string, at: number): boolean {
  return /\b(?:e\.g|i\.e)\.[\s`'"(<|[\u201c\u2018]{0,6}$/i.test(text.slice(Math.max(0, at - 14), at));
}

/** Per token: how many "> " marks open its line. */
function replyDepths(t: Token[], text: string): number[] {
  const depthAt = (from: number) => (/^(?:[ \t]{0,3}>)*/.exec(text.slice(from, from + 40))?.[0] ?? "").split(">").length - 1;
  const out: number[] = new Array(t.length).fill(0);
  let pos = 0;
  let depth = depthAt(0);
  for (let i = 0; i < t.length; i++) {
    for (; pos < t[i].start; pos++) if (text.charCodeAt(pos) === 10) depth = depthAt(pos + 1);
    out[i] = depth;
  }
  return out;
}

/** Per token: on a line quoted from an earlier message ("> ..."), where attackers also plant orders. */
export function replyLineTokens(t: Token[], text: string): boolean[] {
  const out: boolean[] = new Array(t.length).fill(false);
  if (!text.includes(">")) return out;
  let lineStart = 0;
  let pos = 0;
  for (let i = 0; i < t.length; i++) {
    for (; pos < t[i].start; pos++) if (text.charCodeAt(pos) === 10) lineStart = pos + 1;
    out[i] = /^[ \t]*>/.test(text.slice(lineStart, lineStart + 8));
  }
  return out;
}

/**
 * Per token: inside quotes ("...", '...' on its line), code (`...`, a ``` block) or a line quoted
 * from an earlier message ("> ..."). The learned stage reads it too (injection/features.ts), so
 * both stages tell quoted words from words addressed to the reader the same way.
 */
export function quotedTokens(t: Token[], text: string, opt = { reply: true, cjk: false }): boolean[] {
  const quoted: boolean[] = new Array(t.length).fill(false);
  if (!/["'`>\u2018\u2019\u201c\u201d\u00ab\u00bb\u201e\u300c\u300e]/.test(text)) return quoted;
  let corner = false;
  let double = false;
  let single = false;
  let tick = false;
  let fence = text.startsWith("```");
  let reply = text.startsWith(">"); // a line of an earlier message quoted in a reply
  let pos = fence ? 3 : 0;
  for (let i = 0; i < t.length; i++) {
    for (; pos < t[i].start; pos++) {
      const c = text.charCodeAt(pos);
      if (c === 10) {
        double = single = tick = corner = false;
        reply = text.charCodeAt(pos + 1) === 62;
        // A fence opens or closes a code block, also on a "> " line of an earlier message.
        const fenceAt = FENCE_LINE.exec(text.slice(pos + 1, pos + 16));
        if (fenceAt) {
          fence = !fence;
          pos += fenceAt[0].length;
        }
      } else if (c === 34 || (c > 127 && QUOTES.has(text[pos]))) double = !double;
      else if (opt.cjk && c > 127 && CJK_OPEN.has(text[pos])) corner = true;
      else if (opt.cjk && c > 127 && CJK_CLOSE.has(text[pos])) corner = false;
      else if (c === 96) tick = !tick;
      else if (c === 39 || (c > 127 && SINGLE.has(text[pos]))) {
        const before = pos === 0 ? " " : text[pos - 1];
        const after = pos + 1 < text.length ? text[pos + 1] : " ";
        if (!single && c !== 0x2019 && OPENS_AFTER.test(before) && !/\s/.test(after)) single = true;
        else if (single && c !== 0x2018 && !/\s/.test(before) && CLOSES_BEFORE.test(after)) single = false;
      }
    }
    quoted[i] = double || single || tick || corner || fence || (opt.reply && reply);
  }
  return quoted;
}
