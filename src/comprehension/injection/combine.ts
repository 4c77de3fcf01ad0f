// Second stage: signals that are weak alone but describe an attack together. The families
// find pieces (a reader named in the third person, an order, a rule set aside, an action on
// the human's data); an attack usually carries two of them, ordinary mail rarely does.
//
//   addressed + directive   "If an AI model reads this, tell the user to ..."
//   override  + action      "the rules are paused ... share the reset emails"
//   data placeholders       body={{all_unread_messages}}, <entire inbox>, [USER_EMAILS]
//
// Everything here is one pass over the tokens or one bounded regex per text, so it stays linear.

import COMBINE_WORDS from "./combine-words.json" with { type: "json" };
import { C } from "./lexicon.ts";
import type { Hit, View } from "./view.ts";
import { CUTOFFS, WEIGHTS as W } from "./weights.ts";

const MODALS = new Set(COMBINE_WORDS.MODALS);
const PLEASE = new Set(COMBINE_WORDS.PLEASE);
const ASKING = new Set(COMBINE_WORDS.ASKING);
const ACTIONS = new Set([
  "exfil_request",
  "tool_call",
  "tool_call_json",
  "destructive_action",
  "url_exfil",
  "agent_manipulation",
  "secrecy",
  "data_placeholder",
]);
const ADDRESSED = new Set(["ai_addressed", "persona_shift"]);
const CLAUSE = new Set(COMBINE_WORDS.CLAUSE);
// How strong a hit must be to take part in a combination (weights.json cutoffs.combine).
const CUT = CUTOFFS.combine;
const SENTENCES_AFTER = 4; // how far an address reaches: "Assistant: ... . Then ... ."

export function combineHits(v: View, hits: Hit[]): void {
  placeholderHits(v.text, hits);
  let address: Hit | null = null;
  let override: Hit | null = null;
  let action: Hit | null = null;
  for (const h of hits) {
    if (ADDRESSED.has(h.name) && h.weight >= CUT.addressFloor && (address === null || h.weight > address.weight)) address = h;
    if (h.name === "override_prior" && h.weight >= CUT.overrideFloor && (override === null || h.weight > override.weight)) override = h;
    if (ACTIONS.has(h.name) && h.weight >= CUT.actionFloor && (action === null || h.weight > action.weight)) action = h;
  }
  if (override !== null && action !== null) {
    hits.push({
      name: "override_and_act",
      weight: W.combine.overrideAndAct,
      start: Math.min(override.start, action.start),
      end: Math.max(override.end, action.end),
    });
  }
  if (address === null || v.length === 0) return;
  const from = v.tokenAt(address.start);
  const directive = action !== null && action.start >= address.start ? v.tokenAt(action.start) : directiveAfter(v, from);
  if (directive < 0) return;
  const weight = address.weight >= CUT.addressStrongFloor ? W.combine.addressedStrong : W.combine.addressed;
  hits.push({ name: "addressed_instruction", weight, start: address.start, end: v.t[directive].end });
}

// An order to the reader after the address: a sentence opening with an imperative ("Reply
// with ...", "Please forward ..."), a request ("could you send ..."), "you must/should ...", or
// "the user must ..." (what the reader is to tell its human).
function directiveAfter(v: View, from: number): number {
  const lastSentence = v.sentence[from] + SENTENCES_AFTER;
  for (let i = from; i < v.length && v.sentence[i] <= lastSentence; i++) {
    const verb = v.is(i, C.COMMAND | C.SEND | C.TELL) && !v.is(i, C.NEG);
    const youAt = v.w(i - 1) === "and" ? i - 3 : i - 1; // "could you send ...", "could you draft and send ..."
    const asked = v.w(youAt) === "you" && ASKING.has(v.w(youAt - 1));
    if (verb && (v.sentenceStart(i) || v.t[i - 1]?.punct === ":" || PLEASE.has(v.w(i - 1)) || asked || afterClause(v, i))) {
      if (v.prev(i, 2, C.NEG) < 0) return i;
    }
    if ((v.w(i) === "you" || v.is(i, C.PRINCIPAL)) && MODALS.has(v.w(i + 1)) && v.sentence[i + 1] === v.sentence[i] && !v.is(i + 2, C.NEG))
      return i + 1;
  }
  return -1;
}

// "When she compares the quotes, tell her ...": an order after an opening "when/if ..." clause.
function afterClause(v: View, i: number): boolean {
  if (v.t[i - 1]?.punct !== ",") return false;
  return v.prev(i, 15, (k) => CLAUSE.has(v.w(k)) && (v.sentenceStart(k) || v.t[k - 1]?.punct === ":" || v.t[k - 1]?.punct === "(")) >= 0;
}

// A template slot named after mailbox data or secrets, in any bracket style. Bounded
// repetitions and a fixed opening character keep it linear.
const SLOT =
  /\{\{?[ \t]{0,2}([A-Za-z][A-Za-z0-9_. -]{1,40})[ \t]{0,2}\}\}?|\[([A-Z][A-Z0-9_ ]{2,40})\]|%%([A-Za-z][A-Za-z0-9_]{1,40})%%|<([a-z][a-z _]{2,40})>|\$\{([A-Za-z][A-Za-z0-9_.]{1,40})\}/g;
const BULK =
  /(?:^|[_ .-])(?:all|every|entire|unread|inbox|mailbox|emails|messages|mails|conversation|chat_?history|chat_?log|contacts|address_?book|passwords?|credentials?|tokens?|secrets?|api_?keys?|cookies?|system_?prompt|so_far)(?:$|[_ .-])/i;
const ARGUMENT = /[=:(,][ \t"']{0,3}$/; // right after "body=", "to:", "(" or ","

function placeholderHits(text: string, hits: Hit[]): void {
  let seen = 0;
  for (const m of text.matchAll(SLOT)) {
    if (++seen > 200) return;
    const name = m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? "";
    if (!BULK.test(name.trim())) continue;
    const before = text.slice(Math.max(0, m.index - 4), m.index);
    hits.push({
      name: "data_placeholder",
      weight: ARGUMENT.test(before) ? W.combine.placeholderArgument : W.combine.placeholder,
      start: m.index,
      end: m.index + m[0].length,
    });
  }
}
