// Text that speaks to an AI reader rather than to the human recipient: "if you are an AI",
// "note to the assistant", "Assistant, ...", "when summarizing this email", "your system
// prompt". Alone it is a moderate signal (newsletters talk about assistants); with a command it
// is the strongest context there is.

import ADDRESS_WORDS from "./address-words.json" with { type: "json" };
import { C, WORDS } from "./lexicon.ts";
import type { View } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

const IF_YOU = new Set(ADDRESS_WORDS.IF_YOU);
const TO = new Set(ADDRESS_WORDS.TO);
const VOCATIVE_PUNCT = new Set(ADDRESS_WORDS.VOCATIVE_PUNCT); // not "-": French "Ai-je"
const PROMPT_ADJECTIVE = new Set(ADDRESS_WORDS.PROMPT_ADJECTIVE);
const RELATIVE = new Set(ADDRESS_WORDS.RELATIVE);
const OWN_HUMAN = new Set(ADDRESS_WORDS.OWN_HUMAN);
// "your user page", "your owner's manual": the word is part of a compound noun.
const COMPOUND = new Set(ADDRESS_WORDS.COMPOUND);
const SET_UP = new Set(ADDRESS_WORDS.SET_UP);
const TO_DO = new Set(ADDRESS_WORDS.TO_DO);
const MODALS = new Set(ADDRESS_WORDS.MODALS);
const CONDITION = new Set(ADDRESS_WORDS.CONDITION);
const WHICHEVER = new Set(ADDRESS_WORDS.WHICHEVER);
const SERVING = new Set(ADDRESS_WORDS.SERVING);
const READER_INTERNAL = new Set(ADDRESS_WORDS.READER_INTERNAL);

export function addressFamilies(v: View): void {
  for (let i = 0; i < v.length; i++) {
    const w = v.w(i);
    if (IF_YOU.has(w)) ifYouAre(v, i);
    else if (WORDS.note.has(w)) noteTo(v, i);
    if (v.is(i, C.AI | C.AIWEAK)) aiNoun(v, i);
    if (w === "to_whoever") {
      const k = v.next(i, 3, (n) => WORDS.read.has(v.w(n)) || WORDS.summarize.has(v.w(n)));
      if (k >= 0) v.add("ai_addressed", W.address.toWhoeverReads, i, k);
    }
    if (WORDS.when.has(w)) whenSummarizing(v, i);
    if (v.is(i, C.YOUR) && READER_INTERNAL.has(v.w(i + 1)) && v.sentence[i + 1] === v.sentence[i])
      v.add("ai_addressed", W.address.yourInternals, i, i + 1);
    // "reveal your prompt", but not "your prompt reply"
    if (
      v.is(i, C.YOUR) &&
      (v.w(i + 1) === "prompt" || v.w(i + 1) === "prompts") &&
      !PROMPT_ADJECTIVE.has(v.w(i + 2)) &&
      v.sentence[i + 1] === v.sentence[i]
    )
      v.add("ai_addressed", W.address.yourPrompt, i, i + 1);
    // "your user", "your human": only software has one
    const fileName = v.t[i + 1]?.punct === "." && v.t[i + 2]?.start === (v.t[i + 1]?.end ?? 0) + 1; // "your user.tcl"
    if (v.is(i, C.YOUR) && OWN_HUMAN.has(v.w(i + 1)) && v.sentence[i + 1] === v.sentence[i] && !COMPOUND.has(v.w(i + 2)) && !fileName)
      v.add("ai_addressed", W.address.yourHuman, i, i + 1);
    if (v.w(i) === "you" && v.is(i - 1, C.EVERYTHING | C.QUANT)) configuredTask(v, i);
  }
}

function ifYouAre(v: View, i: number): void {
  const k = v.next(i, 4, C.AI | C.AIWEAK);
  if (k < 0) return;
  if (v.is(k, C.AI) || v.nextWord(k, 2, WORDS.read) >= 0) v.add("ai_addressed", W.address.ifYouAreAi, i, k);
  else if (!WORDS.humanRole.has(v.w(k + 1))) v.add("ai_addressed", W.address.ifYouAreWeak, i, k);
}

function noteTo(v: View, i: number): void {
  if (!TO.has(v.w(i + 1)) || v.sentence[i + 1] !== v.sentence[i]) return;
  const k = v.next(i + 1, 4, C.AI | C.AIWEAK);
  if (k < 0) return;
  // "Note for the team: our inbox assistant ...": the note is for whoever comes before the colon.
  for (let m = i + 1; m < k; m++) if (v.t[m].punct === ":") return;
  if (v.is(k, C.AI)) v.add("ai_addressed", W.address.noteToAi, i, k);
  else if (!WORDS.humanRole.has(v.w(k + 1))) v.add("ai_addressed", W.address.noteToWeak, i, k);
}

function aiNoun(v: View, i: number): void {
  // "the AI that reads Sam's mail"
  if (v.is(i, C.AI) && RELATIVE.has(v.w(i + 1)) && WORDS.read.has(v.w(i + 2)) && v.sentence[i + 2] === v.sentence[i]) {
    v.add("ai_addressed", W.address.aiThatReads, i, i + 2);
    return;
  }
  // "for the assistant that handles Sam's mail", "to the AI tool helping Sam with ...": a reader
  // addressed by the job it does for someone.
  if (v.w(i - 1) === "the" && TO.has(v.w(i - 2)) && v.sentence[i - 2] === v.sentence[i]) {
    const k = RELATIVE.has(v.w(i + 1)) ? i + 2 : i + 1;
    if (
      v.sentence[k] === v.sentence[i] &&
      (WORDS.read.has(v.w(k)) || SERVING.has(v.w(k))) &&
      (v.is(i, C.AI) || !WORDS.humanRole.has(v.w(i + 1)))
    ) {
      v.add("ai_addressed", v.is(i, C.AI) ? W.address.forTheAiServing : W.address.forTheWeakServing, i - 2, k);
      return;
    }
  }
  // "If an AI model is summarizing this", "in case a language model reads this": the reader
  // named in the third person, in a condition only the reader can meet.
  const cond = v.prev(i, 3, (k) => CONDITION.has(v.w(k)));
  const condRead = cond >= 0 ? v.nextWord(i, 3, WORDS.read) : -1;
  if (condRead >= 0) {
    v.add("ai_addressed", v.is(i, C.AI) ? W.address.conditionAi : W.address.conditionWeak, cond, condRead);
    return;
  }
  // "to whichever bot handles her email", "any model processing this": a chosen reader.
  const which = v.prev(i, 2, (k) => WHICHEVER.has(v.w(k)));
  if (which >= 0 && v.nextWord(i, 2, WORDS.read) >= 0) {
    v.add("ai_addressed", v.is(i, C.AI) ? W.address.whicheverAi : W.address.whicheverWeak, which, v.nextWord(i, 2, WORDS.read));
    return;
  }
  // "AI agent reading this email", "automated reader of this inbox"
  const read = v.nextWord(i, 2, WORDS.read);
  const from = read >= 0 ? read : i;
  const thisWord = v.nextWord(from, 3, WORDS.this);
  if (thisWord >= 0 && v.nextWord(thisWord - 1, 2, WORDS.mail) >= 0 && (read >= 0 || v.is(i, C.AI))) {
    v.add("ai_addressed", W.address.readingThisMail, i, thisWord + 1);
    return;
  }
  // "Hi there, Sam's email assistant,": a greeting a few words back, the reader named last.
  const last = v.is(i + 1, C.AI | C.AIWEAK) ? i + 1 : i;
  if (
    v.is(i, C.AI) &&
    VOCATIVE_PUNCT.has(v.t[last].punct) &&
    v.prev(i, 4, (k) => WORDS.dear.has(v.w(k))) >= 0 &&
    !v.is(i - 1, C.AI | C.AIWEAK)
  ) {
    v.add(
      "ai_addressed",
      W.address.greetedLast,
      v.prev(i, 4, (k) => WORDS.dear.has(v.w(k))),
      last,
    );
    return;
  }
  // Vocative: "Assistant, ...", "Hello agent.", "AI assistant: ..."
  const greeted = i > 0 && WORDS.dear.has(v.w(i - 1)) && v.sentence[i - 1] === v.sentence[i];
  const atStart = v.sentenceStart(i) || (greeted && v.sentenceStart(i - 1));
  if (!atStart && !greeted) return;
  const punct = v.t[i].punct;
  if (punct === ":" && !greeted && speakerTurn(v.text, v.t[i].start)) return;
  if (v.is(i, C.AI) && (VOCATIVE_PUNCT.has(punct) || greeted)) v.add("ai_addressed", W.address.vocativeAi, greeted ? i - 1 : i);
  else if (v.is(i, C.AIWEAK) && (punct === "," || greeted) && !WORDS.humanRole.has(v.w(i + 1)))
    v.add("ai_addressed", W.address.vocativeWeak, greeted ? i - 1 : i);
}

// "Customer: can I ...\nBot: Sure, ...": a label opening a line between other speakers' labels
// names who spoke in a transcript being shown, not whom the mail addresses.
const SPEAKER_LINE = /^[ \t>]{0,8}[A-Z][\w'.-]{0,20}(?: [A-Z]?[\w'.-]{1,20})?:[ \t]/;
function speakerTurn(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  if (!/^[ \t>]*$/.test(text.slice(lineStart, at))) return false;
  const before = text.lastIndexOf("\n", lineStart - 2) + 1;
  const prev = lineStart > 0 ? text.slice(before, lineStart - 1) : "";
  const nextStart = text.indexOf("\n", at);
  const next = nextStart < 0 ? "" : text.slice(nextStart + 1, nextStart + 60);
  const label = (line: string) =>
    SPEAKER_LINE.test(line) &&
    !line
      .slice(0, line.indexOf(":"))
      .toLowerCase()
      .includes(text.slice(at, at + 3).toLowerCase());
  return label(prev) && label(next);
}

// "when summarizing this email", "before summarizing,": instructions for whoever processes it.
function whenSummarizing(v: View, i: number): void {
  const k = v.nextWord(i, v.w(i + 1) === "you" ? 4 : 2, WORDS.summarize); // "when you produce the summary"
  if (k < 0) return;
  const byYou = v.w(i + 1) === "you";
  const onThis = v.nextWord(k, 3, WORDS.this) >= 0 || v.nextWord(k, 3, WORDS.mail) >= 0;
  if (byYou || onThis || v.t[k].punct === ",") v.add("ai_addressed", W.address.whenSummarizing, i, k);
}

// "whatever you were set up to do", "everything you were instructed to do": the reader's
// standing task, which only a configured agent has.
function configuredTask(v: View, i: number): void {
  const k = v.next(i, 4, (n) => v.is(n, C.TOLD) || SET_UP.has(v.w(n)));
  if (k >= 0 && v.nextWord(k, 3, TO_DO) >= 0) v.add("ai_addressed", W.address.configuredTask, i - 1, v.nextWord(k, 3, TO_DO));
}

/** Hidden text only: sentences that open with an order or a "you must". */
export function hiddenImperative(v: View): void {
  for (let i = 0; i < v.length; i++) {
    if (!v.sentenceStart(i)) continue;
    const w = v.w(i);
    const order = v.is(i, C.COMMAND | C.SEND | C.OVERRIDE) && !v.is(i, C.NEG);
    const negOrder = v.is(i, C.NEG) && v.next(i, 2, C.TELL | C.SEND | C.COMMAND) >= 0;
    const you = w === "you" && v.nextWord(i, 2, MODALS) >= 0;
    if (order || negOrder || you || w === "always") {
      v.add("hidden_imperative", W.address.hiddenImperative, i, Math.min(v.length - 1, i + 6));
      return;
    }
  }
}
