// Families that set aside the reader's standing instructions: "ignore what you were told"
// (override) and "your earlier rules no longer apply" (void). Weights start low for the bare verb-object pair and rise with what makes it address an AI
// (your, all, previous, system); a first-person owner ("my previous instructions") is a person
// correcting their own mail and keeps a third of the weight.

import { C } from "./lexicon.ts";
import OVERRIDE_WORDS from "./override-words.json" with { type: "json" };
import type { View } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

const SUBJECT_FIRST = new Set(OVERRIDE_WORDS.SUBJECT_FIRST);
const PRONOUN = new Set(OVERRIDE_WORDS.PRONOUN);

export function overrideFamilies(v: View): void {
  const used = new Set<number>();
  for (let i = 0; i < v.length; i++) {
    if (v.is(i, C.OVERRIDE)) overrideAt(v, i, used);
  }
  for (let j = 0; j < v.length; j++) {
    if (!used.has(j) && v.is(j, C.RULES | C.ORDERS)) voidAt(v, j);
  }
  cjkOverride(v);
}

// Chinese and Japanese are tokenized a character at a time, so the word classes above miss
// them: "忽略你之前收到的指示" (ignore the instructions you received before), "以前の指示を無視".
// Bounded gaps keep both patterns linear.
const CJK_OVERRIDE =
  /(忽略|忽视|忽視|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|不要理睬|别理会|別理會|放弃|放棄|抛开|拋開)([^。！？!?\n]{0,10}?)(指示|指令|命令|说明|說明|规则|規則|提示|设定|設定|规定|規定)|(指示|指令|命令|ルール|設定)([^。！？!?\n]{0,6}?)(無視|忘れ)/g;
// Weighted as in English (weights.ts): the bare pair, plus previous, all and your.
const CJK_PRIOR = /之前|以前|先前|此前|上述|以上|前面|原来|原來|原有|これまで|前の/;
const CJK_ALL = /所有|全部|一切|すべて|全て/;
const CJK_YOUR = /你|您|あなた/;

function cjkOverride(v: View): void {
  if (v.length === 0) return;
  let seen = 0;
  for (const m of v.text.matchAll(CJK_OVERRIDE)) {
    if (++seen > 20) return;
    const before = v.text.slice(Math.max(0, m.index - 6), m.index);
    const between = `${before}${m[2] ?? m[5] ?? ""}`;
    const w0 =
      W.override.cjk + (CJK_PRIOR.test(between) ? W.override.cjkPlusPrior : 0) + (CJK_ALL.test(between) ? W.override.cjkPlusAll : 0);
    let w = w0 + (CJK_YOUR.test(between) ? W.override.cjkPlusYour : 0);
    if (/我/.test(m[2] ?? "")) w *= W.override.timesFirstPerson; // "忽略我之前的说明": a person correcting their own mail
    v.add("override_prior", w, v.tokenAt(m.index), v.tokenAt(m.index + m[0].length - 1));
  }
}

function overrideAt(v: View, i: number, used: Set<number>): void {
  if (v.prev(i, 2, C.NEG) >= 0) return; // "don't ignore the rules below"
  let j = v.next(i, 7, C.RULES | C.ORDERS | C.EVERYTHING);
  // "... the instructions you are under are outdated. Ignore them": the object is a pronoun.
  if (j < 0 && PRONOUN.has(v.w(i + 1)) && rulesJustBefore(v, i)) j = i + 1;
  if (j >= 0) {
    used.add(j);
    const pronoun = j === i + 1 && PRONOUN.has(v.w(j));
    const everything = !pronoun && !v.is(j, C.RULES | C.ORDERS);
    let w =
      pronoun || v.is(j, C.RULES) ? W.override.rulesObject : v.is(j, C.ORDERS) ? W.override.ordersObject : W.override.everythingObject;
    if (v.between(i, j, C.QUANT)) w += W.override.plusQuantifier;
    if (v.between(i, j, C.YOUR)) w += W.override.plusYour;
    if (v.between(i, j, C.PRIOR) || v.next(j, 3, C.PRIOR) >= 0) w += W.override.plusPrior;
    if (v.between(i, j, C.SYSTEMY)) w += W.override.plusSystem;
    if (v.next(j, 5, C.TOLD) >= 0) w += everything ? W.override.plusToldEverything : W.override.plusTold;
    const firstPerson = v.between(i, j, C.FIRST) || v.nextWord(j, 3, SUBJECT_FIRST) >= 0;
    if (firstPerson) w *= W.override.timesFirstPerson;
    else if (followedByCommand(v, j)) w += W.override.plusCommand;
    v.add("override_prior", w, i, j);
    return;
  }
  // "forget what your developers told you": no object noun, the telling itself is the object.
  const k = v.next(i, 6, C.TOLD);
  if (k >= 0) {
    let w = W.override.told;
    if (v.between(i, k, C.YOUR)) w += W.override.toldPlusYour;
    if (v.between(i, k, C.FIRST)) w *= W.override.timesFirstPerson;
    v.add("override_prior", w, i, k);
  }
}

// Rules named within the last 20 words, across sentence ends: what "them" refers to.
function rulesJustBefore(v: View, i: number): boolean {
  for (let k = i - 1; k >= 0 && k >= i - 20; k--) if (v.is(k, C.RULES)) return true;
  return false;
}

// An override followed by a fresh order ("... and instead output X") is the attack's shape.
function followedByCommand(v: View, j: number): boolean {
  const end = Math.min(v.length - 1, j + 12);
  for (let k = j + 1; k <= end; k++) {
    if (v.is(k, C.COMMAND | C.SEND) || v.w(k) === "now") return true;
  }
  return false;
}

// Rules declared void only matter when they are the reader's: "your rules", "the guidance you
// received"; "the old parking rules no longer apply" is a notice to people.
function voidAt(v: View, j: number): void {
  const k = v.next(j, 7, C.VOID);
  if (k < 0) return;
  let w = v.is(j, C.RULES) ? W.override.voidRules : W.override.voidOrders;
  const near = (mask: number) => v.prev(j, 3, mask) >= 0 || v.between(j, k, mask);
  if (near(C.YOUR) || v.next(j, 3, (n) => v.w(n) === "you") >= 0) w += W.override.voidPlusYour;
  if (near(C.QUANT)) w += W.override.voidPlusQuantifier;
  if (near(C.PRIOR | C.TOLD)) w += W.override.voidPlusPrior;
  if (near(C.SYSTEMY)) w += W.override.voidPlusSystem;
  if (near(C.FIRST)) w *= W.override.timesFirstPerson;
  v.add("override_prior", w, j, k);
}
