// Features for the learned injection stage, shared by the scorer and scripts/train-injection.ts
// so training and scoring cannot drift apart.
//
// A message is cut into windows of up to three sentences (at most WINDOW_TOKENS tokens),
// one starting at each sentence, because an attack is a few sentences inside mail that can be
// long: scoring the whole message would let a page of ordinary text dilute it, and a long
// message would pile up weak words. Each window becomes a set of names:
//   u:word  b:word word      folded words and pairs (look-alikes, accents, case removed)
//   s:stem  t:stem stem      the first five letters, so ignore/ignoring/ignora/ignoriere meet
//                            (only where that differs from the word, so short words count once)
//   ctx:hidden               the window is in text hidden from the human
//   q:word  ctx:quoted       a word inside quotes or code, told apart from the same word said to
//                            the reader (no stem, no pairs), and that the window quotes at all
//   len:12-23                how many tokens the window has, in buckets
//   x:5                      which of three roles the window combines (see READER below)
// Links and addresses are "<url>" and "<email>"; numbers are "<n>"; kana and Han characters are
// a token each (injection/text.ts), so their pairs are character bigrams. The rule stage's signals
// join every window of the message as r:<name> with the signal's weight as value.

import FEATURES_WORDS from "./features-words.json" with { type: "json" };
import { type Token, tokenize } from "./text.ts";
import { quotedTokens } from "./view.ts";

export const WINDOW_SENTENCES = 3;
export const WINDOW_TOKENS = 48;
// Windows scored per text, which bounds the cost on hostile input: past ~400 sentences only
// the rules read the rest of a message.
export const MAX_WINDOWS = 400;

// A window lists its features as indices into its text's `names`, each once: a text's
// features are named once and looked up in the model once, however many windows share them.
export type Window = { ids: number[]; start: number; end: number };
export type Windows = { names: string[]; list: Window[] };

function word(t: Token): string {
  if (t.link) return t.w;
  const w = t.alt !== "" ? t.alt : t.w;
  return /^[0-9]+$/.test(w) ? "<n>" : w;
}

/** Windows of one text, in order; `start`/`end` are character offsets for evidence. */
/** Names to dense ids in first-use order: `names[id]` is the name again. */
export function interner(): { names: string[]; intern(name: string): number } {
  const names: string[] = [];
  const index = new Map<string, number>();
  return {
    names,
    intern(name) {
      let id = index.get(name);
      if (id === undefined) {
        id = names.length;
        index.set(name, id);
        names.push(name);
      }
      return id;
    },
  };
}

export function windows(text: string, hidden: boolean): Windows {
  const { names, intern } = interner();
  if (text.trim() === "") return { names, list: [] };
  const tokens = tokenize(text);
  const quoted = quotedTokens(tokens, text);
  // Per token, named on first use: its word, its stem, and its pair with the next token.
  const own: (number[] | undefined)[] = new Array(tokens.length);
  const pair: (number[] | undefined)[] = new Array(tokens.length);
  const wordAt = (i: number) => word(tokens[i]);
  const stemOf = (w: string) => (w.startsWith("<") ? w : w.slice(0, 5));
  const ownOf = (i: number): number[] => {
    if (own[i] === undefined) {
      const w = wordAt(i);
      if (quoted[i]) return (own[i] = [intern(`q:${w}`)]);
      const st = stemOf(w);
      own[i] = st === w ? [intern(`u:${w}`)] : [intern(`u:${w}`), intern(`s:${st}`)];
    }
    return own[i];
  };
  const pairOf = (i: number): number[] => {
    if (pair[i] === undefined) {
      if (quoted[i] || quoted[i + 1]) return (pair[i] = []);
      const [w, x] = [wordAt(i), wordAt(i + 1)];
      const [sw, sx] = [stemOf(w), stemOf(x)];
      pair[i] = sw === w && sx === x ? [intern(`b:${w} ${x}`)] : [intern(`b:${w} ${x}`), intern(`t:${sw} ${sx}`)];
    }
    return pair[i];
  };
  const hiddenId = hidden ? intern("ctx:hidden") : -1;
  const starts: number[] = [];
  for (let i = 0; i < tokens.length; i++) if (i === 0 || tokens[i].brk) starts.push(i);
  const list: Window[] = [];
  let stamp = new Int32Array(64);
  for (let k = 0; k < starts.length && list.length < MAX_WINDOWS; k++) {
    const from = starts[k];
    const sentenceEnd = k + WINDOW_SENTENCES < starts.length ? starts[k + WINDOW_SENTENCES] : tokens.length;
    // A run longer than the window (a huge sentence) is read in overlapping slices.
    for (let s = from; list.length < MAX_WINDOWS; s += WINDOW_TOKENS / 2) {
      const to = Math.min(sentenceEnd, s + WINDOW_TOKENS);
      const mark = list.length + 1;
      const ids: number[] = [];
      const add = (id: number) => {
        if (id >= stamp.length) {
          const grown = new Int32Array(Math.max(id + 1, stamp.length * 2));
          grown.set(stamp);
          stamp = grown;
        }
        if (stamp[id] === mark) return;
        stamp[id] = mark;
        ids.push(id);
      };
      add(intern(lengthName(to - s)));
      if (hiddenId >= 0) add(hiddenId);
      let roles = 0;
      for (let i = s; i < to; i++) {
        if (quoted[i]) add(intern("ctx:quoted"));
        for (const id of ownOf(i)) add(id);
        if (i + 1 < to) for (const id of pairOf(i)) add(id);
        roles |= roleOf(tokens[i]);
      }
      if (roles > 0 && (roles & (roles - 1)) !== 0) add(intern(`x:${roles}`));
      list.push({ ids, start: tokens[s].start, end: tokens[to - 1].end });
      if (to >= sentenceEnd) break;
    }
  }
  return { names, list };
}

// Three roles an attack combines, whatever its words: a machine reader, something private,
// and somewhere outside. A window holding two or three of them gets a feature for that
// combination (x:3 reader+private, x:5 reader+outside, x:6 private+outside, x:7 all), which a
// linear model over single words cannot express. The word sets name kinds, not phrasings.
const READER = new Set(FEATURES_WORDS.READER);
const PRIVATE = new Set(FEATURES_WORDS.PRIVATE);
function roleOf(t: Token): number {
  if (t.link) return 4;
  const w = t.alt !== "" ? t.alt : t.w;
  return READER.has(w) ? 1 : PRIVATE.has(w) ? 2 : 0;
}

// How long the window is. Attack windows are full sentences; without this the model credited
// whatever words long windows share ("the", "to") with being an attack.
function lengthName(n: number): string {
  return n < 6 ? "len:<6" : n < 12 ? "len:6-11" : n < 24 ? "len:12-23" : n < 36 ? "len:24-35" : "len:36+";
}

export type RuleFeature = { name: string; weight: number };

/** The rule stage's signals as features: one per signal name, valued by its weight. */
export function ruleFeatures(signals: RuleFeature[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of signals) out.set(`r:${s.name}`, Math.max(out.get(`r:${s.name}`) ?? 0, s.weight));
  return out;
}
