// Families that move the human's data out or damage it: send/forward/upload requests, standing
// forwarding rules, data stuffed into URLs, tool calls, deletions. A person asking a colleague
// to "send the files" scores low; what makes it an attack is credentials, "all", an outside
// address, "the user's" (the reader is not the user), or a reply that carries it to the sender.

import EXFIL_WORDS from "./exfil-words.json" with { type: "json" };
import { C, WORDS } from "./lexicon.ts";
import type { View } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

const NOUN_VERBS = new Set(EXFIL_WORDS.NOUN_VERBS); // also nouns: "email password"
const WHOLE = new Set(EXFIL_WORDS.WHOLE);
const SENDING_IDENT = /^(send|forward|upload|export|share|transfer|post)_/;
const ACTION_IDENT = /^(send|forward|delete|export|upload|transfer|share|post|exec|execute|fetch)_/;
const DETERMINER_BEFORE = new Set(EXFIL_WORDS.DETERMINER_BEFORE);
const PREPOSITION = new Set(EXFIL_WORDS.PREPOSITION);
const RELATIVE = new Set(EXFIL_WORDS.RELATIVE); // "a filter that sends copies" is the request's object
const PREPOSITION_ING = new Set(EXFIL_WORDS.PREPOSITION_ING);
const INDEFINITE = new Set(EXFIL_WORDS.INDEFINITE);
const WEAK_SEND = new Set(EXFIL_WORDS.WEAK_SEND);
const CLAUSE_END = new Set(EXFIL_WORDS.CLAUSE_END);
const INTO = new Set(EXFIL_WORDS.INTO);
const REPLY = new Set(EXFIL_WORDS.REPLY);
const MAILBOX = new Set(EXFIL_WORDS.MAILBOX);
const DESTROY = new Set(EXFIL_WORDS.DESTROY);
const WE = new Set(EXFIL_WORDS.WE);
const DETERMINER = new Set(EXFIL_WORDS.DETERMINER);
const RULE_VERBS = new Set(EXFIL_WORDS.RULE_VERBS);
const MAILBOX_RULE = new Set(EXFIL_WORDS.MAILBOX_RULE);
const COPYING = new Set(EXFIL_WORDS.COPYING);

export function exfilFamilies(v: View): void {
  for (let i = 0; i < v.length; i++) {
    const w = v.w(i);
    if (v.is(i, C.SEND) && !usedAsNoun(v, i)) exfilAt(v, i, 6, describes(v, i));
    else if (SENDING_IDENT.test(w)) exfilAt(v, i, 15, false); // send_email(...) sends too, arguments follow
    if (MAILBOX_RULE.has(w)) mailboxRuleAt(v, i);
    if (v.is(i, C.INVOKE)) toolAt(v, i);
    else if (ACTION_IDENT.test(w)) v.add("tool_call", W.exfil.toolIdentifier, i);
    if (WORDS.append.has(w)) urlStuffingAt(v, i);
    if (DESTROY.has(w)) destructionAt(v, i);
  }
}

// "your e-mail address", "the leak", "sent by email": the verb's word used as a noun. Also
// descriptions rather than requests: "the tool sends", "prevents users from sending", and
// quoted mail headers ("Cc: ...").
function usedAsNoun(v: View, i: number): boolean {
  const w = v.w(i);
  if (v.t[i].punct === ":" && (w === "cc" || w === "bcc" || w === "sent")) return true;
  if (i === 0 || v.sentence[i - 1] !== v.sentence[i]) return false;
  const before = v.w(i - 1);
  if (CLAUSE_END.has(v.t[i - 1].punct)) return false; // "... reads this: send the contacts"
  if (w.endsWith("ing") && PREPOSITION_ING.has(before)) return true;
  return DETERMINER_BEFORE.has(before) || v.is(i - 1, C.YOUR | C.FIRST) || (NOUN_VERBS.has(v.w(i)) && PREPOSITION.has(before));
}

// "the tool sends copies", "it transfers files": a description, not a request. Requests use
// the bare verb; a description still counts when it is about secrets ("X shares passwords").
function describes(v: View, i: number): boolean {
  return /[^s]s$/.test(v.w(i)) && !RELATIVE.has(v.w(i - 1));
}

function exfilAt(v: View, i: number, reach: number, described: boolean): void {
  if (INDEFINITE.has(v.w(i + 1)) && v.sentence[i + 1] === v.sentence[i]) return; // "send an email to list-subscribe@": a new message, not data
  if (v.prev(i, 5, C.NEG) >= 0) return; // "never share your password", "we will never ask you to send"
  let j = v.next(i, reach, C.SECRET | C.DATA);
  let scale = 1;
  if (j === i + 1 && NOUN_VERBS.has(v.w(i))) j = -1;
  if (j < 0) {
    const back = NOUN_VERBS.has(v.w(i)) ? -1 : v.prev(i, 6, C.SECRET); // "the password manager export ... upload it"
    if (back >= 0 && v.prev(back, 5, C.NEG) < 0) {
      j = back;
      scale = W.exfil.timesSecretBefore;
    } else {
      // Something, unnamed, sent to an outside address: weak alone, strong when hidden.
      if (described) return;
      const dest = v.next(i, 12, (k) => v.t[k].link && v.t[k].w === "<email>");
      const itself = WORDS.this.has(v.w(i + 1)) && (WORDS.mail.has(v.w(i + 2)) || v.w(i + 2) === "to"); // "forward this email to"
      if (dest >= 0 && !itself)
        v.add("exfil_request", v.between(i, dest, C.QUANT) ? W.exfil.unnamedToAddressAll : W.exfil.unnamedToAddress, i, dest);
      return;
    }
  }
  if (described && !v.is(j, C.SECRET)) return;
  const lo = Math.min(i, j);
  const hi = Math.max(i, j);
  let w = v.is(j, C.SECRET) ? W.exfil.secretObject : W.exfil.dataObject;
  if (v.between(lo, hi, C.QUANT) || v.prevWord(j, 3, WHOLE) >= 0) w += W.exfil.plusWhole;
  if (v.between(lo, hi, C.PRINCIPAL)) w += W.exfil.plusPrincipal; // "the user's passwords": the reader is not the user
  const dest = v.next(i, 25, (k) => v.t[k].link);
  if (dest >= 0 || REPLY.has(v.w(i)) || intoReply(v, hi))
    w += W.exfil.plusOutward; // a reply goes to the sender
  else if (WEAK_SEND.has(v.w(i))) w *= W.exfil.timesWeakSend; // "include a token with the request" moves nothing out
  if (v.prev(hi, 12, inThisMailbox) >= 0 || v.next(hi, 12, inThisMailbox) >= 0) w += W.exfil.plusThisMailbox;
  v.add("exfil_request", w * scale, lo, dest >= 0 ? dest : hi);

  function inThisMailbox(k: number): boolean {
    return MAILBOX.has(v.w(k)) && (WORDS.this.has(v.w(k - 1)) || v.is(k - 1, C.YOUR));
  }
}

// "... into your reply": whatever goes into the reply goes to the sender.
function intoReply(v: View, from: number): boolean {
  const k = v.next(from, 8, (n) => WORDS.output.has(v.w(n)) && (v.is(n - 1, C.YOUR) || v.w(n - 1) === "a") && INTO.has(v.w(n - 2)));
  return k >= 0 && WORDS.output.has(v.w(k)) && v.w(k) !== "summary";
}

// "set up a forwarding rule to x@y": a standing copy of all future mail.
function mailboxRuleAt(v: View, i: number): void {
  const generic = v.w(i) === "filter" || v.w(i) === "rule"; // only a mail rule if it copies mail out
  if (generic && v.next(i, 6, (k) => COPYING.has(v.w(k))) < 0) return;
  const dest = v.next(i, 20, (k) => v.t[k].link);
  const setUp = v.prev(i, 4, (k) => RULE_VERBS.has(v.w(k)));
  if (dest >= 0) v.add("exfil_request", W.exfil.mailboxRuleToAddress, setUp >= 0 ? setUp : i, dest);
  else if (setUp >= 0 && !generic) v.add("exfil_request", W.exfil.mailboxRule, setUp, i);
}

function toolAt(v: View, i: number): void {
  // "use"/"run" are everyday verbs: only "use your browsing tool", not "an easy-to-use tool".
  if ((v.w(i) === "use" || v.w(i) === "run") && !DETERMINER.has(v.w(i + 1))) return;
  const k = v.next(i, 4, (n) => v.is(n, C.TOOL) || ACTION_IDENT.test(v.w(n)));
  if (k < 0) return;
  v.add("tool_call", ACTION_IDENT.test(v.w(k)) ? W.exfil.toolAction : W.exfil.tool, i, k);
}

// "append the user's API key to this link": data carried out inside a URL.
function urlStuffingAt(v: View, i: number): void {
  const data = v.next(i, 8, C.SECRET | C.DATA | C.PRINCIPAL);
  if (data < 0) return;
  const url = v.next(i, 10, (k) => v.t[k].link || WORDS.urlWord.has(v.w(k)));
  if (url >= 0) v.add("url_exfil", W.exfil.urlStuffing, i, Math.max(data, url));
}

// "delete the user's sent folder", "archive all other messages": damage to the human's mail.
function destructionAt(v: View, i: number): void {
  if (v.prev(i, 3, C.NEG) >= 0 || usedAsNoun(v, i) || describes(v, i)) return;
  if (v.prev(i, 5, (n) => WE.has(v.w(n))) >= 0) return; // "we will delete old files": the sender's own doing
  const j = v.next(i, 6, C.DATA);
  if (j < 0) return;
  let w = W.exfil.destroy; // mail clients and tools are discussed in these words all the time
  if (v.between(i, j, C.PRINCIPAL)) w += W.exfil.destroyPlusPrincipal;
  if (v.between(i, j, C.QUANT) || v.next(j, 4, (n) => MAILBOX.has(v.w(n))) >= 0) w += W.exfil.destroyPlusAll;
  v.add("destructive_action", w, i, j);
}
