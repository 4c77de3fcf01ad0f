// Business-email fraud written as to a person: "wire it today and keep this between us", "send
// the W-2s here, no need to call", "my new account below, don't use the old phone number". It
// names no AI reader, yet for an agent that acts on mail it is an action or exfiltration request
// to whoever reads. Its structure, not its phrasing, is what ordinary business mail lacks:
//
//   object    money moving or something sensitive: wire, deposit, bank and card details, gift
//             cards, sign-in codes, identity papers, mail sent to an outside channel
//   pressure  secrecy, a check bypassed, the sender out of reach or locked out: "keep it
//             quiet", "don't mention it", "no need to confirm by phone", "rather than routing
//             it through review", "I can't take calls", "my laptop died"
//   channel   outside the usual process: a personal address, a new account, "reply here"
//   urgency   today, within the hour, before the deadline
//
// fraud_request: pressure and an object within a few sentences; a channel, urgency, a second,
// separate push and a threat ("or the account will be locked") each add to it, so it flags alone
// only with two of them (weights.ts).
// fraud_hint: no pressure, but something only its owner should hold (a code, card or identity
// papers, a new payee account) asked for by reply or to an address, against the clock, in mail
// that names no official process: it needs one more sign to flag, or a threat.
// fraud_payee: bank details printed to pay into ("IBAN:", "Sort code:") beside an order to pay, in
// mail naming no usual process (more when the payee is switched): an honest invoice looks
// the same, so it flags only beside another sign.
// Ordinary look-alikes carry the object and urgency but point to the usual process ("upload it to
// the portal", "call us on the number you have", "please don't email copies"): a negated send is
// not a bypassed check. Mail warning about such fraud (phishing, scam, impersonation) is damped.
// A few passes over the tokens and the sentences: linear in the text.

import FRAUD_WORDS from "./fraud-words.json" with { type: "json" };
import { C } from "./lexicon.ts";
import type { View } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

const MONEY = new Set(FRAUD_WORDS.MONEY);
const NUMBERED = new Set(FRAUD_WORDS.NUMBERED);
const CARD = new Set(FRAUD_WORDS.CARD);
const GIFT = new Set(FRAUD_WORDS.GIFT);
const ACCOUNT = new Set(FRAUD_WORDS.ACCOUNT);
const CHANGED = new Set(FRAUD_WORDS.CHANGED);
const PERSONAL = new Set(FRAUD_WORDS.PERSONAL);
const ADDRESSLIKE = new Set(FRAUD_WORDS.ADDRESSLIKE);
const FREEMAIL = new RegExp(`@(${FRAUD_WORDS.FREEMAIL_PROVIDERS.join("|")})\\.`, "i");
const REPLY_HERE = new Set(FRAUD_WORDS.REPLY_HERE);
const SECRET_WORDS = new Set(FRAUD_WORDS.SECRET_WORDS);
const KEPT = new Set(FRAUD_WORDS.KEPT);
// Checks a fraudster needs skipped: a call-back, a colleague told, the usual route.
const CHECKS = new Set(FRAUD_WORDS.CHECKS);
// Who or what does the checking: skipped only in so many words ("no need to run it past legal",
// "rather than the security review"), not after "without" ("refunds without a review step").
const CHECKERS = new Set(FRAUD_WORDS.CHECKERS);
const BYPASS = new Set(FRAUD_WORDS.BYPASS);
const RUN_BY = new Set(FRAUD_WORDS.RUN_BY); // "no need to run it by legal", "check with her"
const MUST_NOT = new Set(FRAUD_WORDS.MUST_NOT);
const NOT_ORDER = new Set(FRAUD_WORDS.NOT_ORDER);
const URGENT = new Set(FRAUD_WORDS.URGENT);
const IDENTITY = new Set(FRAUD_WORDS.IDENTITY);
const CODE_CONTEXT = new Set(FRAUD_WORDS.CODE_CONTEXT);
const PAYEE = new Set(FRAUD_WORDS.PAYEE);
const INTO = new Set(FRAUD_WORDS.INTO);
const IF = new Set(FRAUD_WORDS.IF);
const ME = new Set(FRAUD_WORDS.ME);
const DAYS = new Set(FRAUD_WORDS.DAYS);
const PROCESS = new Set(FRAUD_WORDS.PROCESS);
const FIRST_PERSON = new Set(FRAUD_WORDS.FIRST_PERSON);
const LOG_IN = new Set(FRAUD_WORDS.LOG_IN);
const UNREACHED = new Set(FRAUD_WORDS.UNREACHED);
const EXECUTIVE = new Set(FRAUD_WORDS.EXECUTIVE);
const AUTHORISED = new Set(FRAUD_WORDS.AUTHORISED);
const USUAL = new Set(FRAUD_WORDS.USUAL);
const ROUTE = new Set(FRAUD_WORDS.ROUTE);
const LATER = new Set(FRAUD_WORDS.LATER);
// Bank-detail labels printed for the reader to pay into: "IBAN:", "Sort code:", "Account number:".
const LABELS = new Set(FRAUD_WORDS.LABELS);
const PAY = new Set(FRAUD_WORDS.PAY);
// The payee switched: "our secondary account", "instead", "the old account will be closed".
const SWITCH = new Set(FRAUD_WORDS.SWITCH);
// A threat: "or we lose the rate tonight", "otherwise your mailbox may be locked", "payments sent
// there will be returned".
const LOSS = new Set(FRAUD_WORDS.LOSS);
const CONSEQUENCE = new Set(FRAUD_WORDS.CONSEQUENCE);
// Papers a company keeps inside, sent on request: "send me the signed NDA and the cap table".
const PAPERS = new Set(FRAUD_WORDS.PAPERS);
const WARNING = /^(phishing|scam|scams|scammer|scammers|impersonat|lookalike|spoof|fraudster|suspicious)/;

export function fraudFamilies(v: View): void {
  const n = v.length;
  if (n === 0) return;
  const sentences = v.sentence[n - 1] + 1;
  const object = new Int32Array(sentences).fill(-1);
  const channel = new Int32Array(sentences).fill(-1);
  const urgent = new Int32Array(sentences).fill(-1);
  const threat = new Int32Array(sentences).fill(-1);
  const pressure: number[] = [];
  let warning = false;
  for (let i = 0; i < n; i++) {
    const w = v.w(i);
    const s = v.sentence[i];
    if (WARNING.test(w)) warning = true;
    if (object[s] < 0 && isObject(v, i)) object[s] = i;
    if (channel[s] < 0 && isChannel(v, i)) channel[s] = i;
    if (urgent[s] < 0 && (URGENT.has(w) || (w === "as" && v.w(i + 1) === "soon") || endOfDay(v, i))) urgent[s] = i;
    if (isPressure(v, i) || unreachable(v, i) || lockedOut(v, i)) pressure.push(i);
    if (threat[s] < 0 && LOSS.has(w) && v.prev(i, 8, (k) => CONSEQUENCE.has(v.w(k))) >= 0 && !lockedOut(v, i)) threat[s] = i;
  }
  // Anything sent to an outside channel is an object too: "forward me whatever she sends, to my
  // personal address".
  for (let i = 0; i < n; i++) {
    const s = v.sentence[i];
    if (object[s] < 0 && channel[s] >= 0 && v.is(i, C.SEND) && !v.is(i - 1, C.NEG)) object[s] = i;
  }
  let best = 0;
  let span: [number, number] = [0, 0];
  for (const p of pressure) {
    const s = v.sentence[p];
    const near = (of: Int32Array): number => {
      for (let d = 0; d <= 6; d++) {
        if (s - d >= 0 && of[s - d] >= 0) return of[s - d];
        if (d > 0 && d <= 2 && s + d < sentences && of[s + d] >= 0) return of[s + d];
      }
      return -1;
    };
    const o = near(object);
    if (o < 0) continue;
    // A second, separate push ("handle it discreetly ... don't mention it to finance").
    const again = pressure.some((q) => Math.abs(q - p) > 4 && Math.abs(v.sentence[q] - s) <= 6);
    const weight =
      W.fraud.request +
      (near(channel) >= 0 ? W.fraud.requestPlusChannel : 0) +
      (near(urgent) >= 0 ? W.fraud.requestPlusUrgency : 0) +
      (again ? W.fraud.requestPlusSecondPush : 0) +
      (near(threat) >= 0 ? W.fraud.requestPlusThreat : 0);
    if (weight > best) [best, span] = [weight, [Math.min(o, p), Math.max(o, p)]];
  }
  if (best > 0) v.add("fraud_request", warning ? best * W.fraud.timesWarning : best, span[0], span[1]);
  if (!warning) directRequest(v, sentences, threat);
  if (!warning) payeeDetails(v);
}

// Bank details printed for the reader to pay into, with an order to pay, in mail that names no
// usual process (more when the payee is switched: "to our secondary account instead"). An
// honest invoice may do the same, so it flags only beside another sign.
function payeeDetails(v: View): void {
  let label = -1;
  let pay = -1;
  let switched = false;
  for (let i = 0; i < v.length; i++) {
    if (inProcess(v, i)) return;
    const w = v.w(i);
    if (label < 0 && isLabel(v, i)) label = i;
    if (pay < 0 && PAY.has(w) && !v.is(i - 1, C.NEG)) pay = i;
    if (SWITCH.has(w) && (v.next(i, 4, (k) => PAYEE.has(v.w(k))) >= 0 || v.prev(i, 4, (k) => PAYEE.has(v.w(k))) >= 0)) switched = true;
  }
  if (label < 0 || pay < 0) return;
  v.add("fraud_payee", switched ? W.fraud.payeeSwitched : W.fraud.payee, Math.min(label, pay), Math.max(label, pay));
}

// "IBAN: ...", "Sort code: ...", "Account number: ...", "Account: 015-...": a label, a colon, digits.
function isLabel(v: View, i: number): boolean {
  const w = v.w(i);
  if (!LABELS.has(w) || v.t[i].punct !== ":") return false;
  if ((w === "number" || w === "no") && v.w(i - 1) !== "account" && v.w(i - 1) !== "routing") return false;
  if (w === "code" && v.w(i - 1) !== "sort") return false;
  return /\d/.test(v.w(i + 1)) || /\d/.test(v.w(i + 2));
}

// Without pressure, a weaker sign: something only its owner should hold (a sign-in code, card
// or identity papers, a new account for payments) asked for by reply or to an address, against
// the clock, in mail that names no official process (a portal, a call on a known number).
function directRequest(v: View, sentences: number, threat: Int32Array): void {
  const sensitive = new Int32Array(sentences).fill(-1);
  const direct = new Int32Array(sentences).fill(-1);
  const urgent = new Int32Array(sentences).fill(-1);
  for (let i = 0; i < v.length; i++) {
    const s = v.sentence[i];
    if (inProcess(v, i)) return;
    if (sensitive[s] < 0 && isSensitive(v, i)) sensitive[s] = i;
    if (direct[s] < 0 && isDirect(v, i)) direct[s] = i;
    if (urgent[s] < 0 && (URGENT.has(v.w(i)) || unreachable(v, i) || v.w(i) === "deadline" || (v.w(i) === "by" && DAYS.has(v.w(i + 1)))))
      urgent[s] = i;
  }
  const near = (of: Int32Array, s: number, reach: number): number => {
    for (let d = 0; d <= reach; d++) {
      if (s - d >= 0 && of[s - d] >= 0) return of[s - d];
      if (s + d < sentences && of[s + d] >= 0) return of[s + d];
    }
    return -1;
  };
  for (let s = 0; s < sentences; s++) {
    if (direct[s] < 0) continue;
    const o = near(sensitive, s, 4);
    if (o >= 0 && near(urgent, s, 4) >= 0) {
      v.add("fraud_hint", near(threat, s, 4) >= 0 ? W.fraud.hintWithThreat : W.fraud.hint, Math.min(o, direct[s]), Math.max(o, direct[s]));
      return;
    }
  }
}

function isSensitive(v: View, i: number): boolean {
  const w = v.w(i);
  if (v.is(i, C.SECRET) || IDENTITY.has(w)) return true;
  if (w === "details" && PAYEE.has(v.w(i - 1))) return true; // "the bank account details"
  if (w === "w" && /^2s?$/.test(v.w(i + 1))) return true;
  if (CARD.has(w) && GIFT.has(v.w(i - 1))) return true;
  if ((w === "code" || w === "codes") && v.prev(i, 4, (k) => CODE_CONTEXT.has(v.w(k))) >= 0) return true; // "the 6-digit verification code"
  return CHANGED.has(w) && v.next(i, 2, (k) => PAYEE.has(v.w(k))) >= 0; // "our new remittance account"
}

// The answer goes straight back or to an address: "reply with it", "just reply here", "email them
// to me", "send it to x@y".
function isDirect(v: View, i: number): boolean {
  const w = v.w(i);
  if (v.t[i].link && w === "<email>") return v.prev(i, 16, C.SEND) >= 0;
  if (w === "reply" && (v.w(i - 1) === "a" || v.is(i - 1, C.YOUR)) && INTO.has(v.w(i - 2))) return true; // "copy them into a reply"
  if (v.prevWord(i, 8, IF) >= 0) return false; // "if this wasn't you, reply to this email"
  if ((w === "reply" || w === "respond") && !v.is(i - 1, C.NEG))
    return REPLY_HERE.has(v.w(i + 1)) || v.w(i + 1) === "to" || v.w(i - 1) === "just";
  if (w === "reply_with" || w === "respond_with") return true;
  return (w === "email" || w === "send" || w === "mail") && v.nextWord(i, 3, ME) >= 0 && !v.is(i - 1, C.NEG);
}

// The usual process named: a portal, a known number, in person, "please don't email copies".
function inProcess(v: View, i: number): boolean {
  const w = v.w(i);
  if (PROCESS.has(w))
    return (
      v.prev(i, 6, (k) => v.w(k) === "cant" || v.w(k) === "cannot" || v.w(k) === "down") < 0 && v.next(i, 4, (k) => v.w(k) === "down") < 0
    );
  if (w === "in" && v.w(i + 1) === "person") return true;
  if (w === "known" && (v.w(i + 1) === "number" || v.w(i + 1) === "phone_number")) return true;
  return (
    v.is(i, C.NEG) &&
    v.next(i, 3, (k) => v.w(k) === "email" || v.w(k) === "send") >= 0 &&
    v.next(i, 6, (k) => v.w(k) === "copies" || v.w(k) === "by" || v.w(k) === "documents") >= 0
  );
}

// "by end of day", "before the end of business"
function endOfDay(v: View, i: number): boolean {
  return v.w(i) === "end" && v.w(i + 1) === "of" && (v.w(i + 2) === "day" || v.w(i + 2) === "business" || v.w(i + 2) === "today");
}

// "I can't talk", "can't take calls": the sender out of reach, so nobody can check with them.
function unreachable(v: View, i: number): boolean {
  if (v.w(i) !== "cant" && v.w(i) !== "cannot") return false;
  return v.prev(i, 10, (k) => v.w(k) === "i" || v.w(k) === "im") >= 0 && v.next(i, 4, (k) => UNREACHED.has(v.w(k))) >= 0;
}

// "I'm locked out", "my laptop died", "can't log into the portal": the sender's excuse for going
// around the usual channel.
function lockedOut(v: View, i: number): boolean {
  const w = v.w(i);
  const mine = (reach: number) => v.prev(i, reach, (k) => FIRST_PERSON.has(v.w(k))) >= 0;
  if (w === "locked") return mine(4) || v.next(i, 2, (k) => v.w(k) === "out" || FIRST_PERSON.has(v.w(k))) >= 0;
  if (w === "lost" && v.w(i + 1) === "access") return true;
  if (w === "died" || w === "dying" || (w === "acting" && v.w(i + 1) === "up")) return mine(5);
  return (w === "cant" || w === "cannot") && mine(10) && v.next(i, 3, (k) => LOG_IN.has(v.w(k))) >= 0;
}

function isObject(v: View, i: number): boolean {
  const w = v.w(i);
  if (SECRET_WORDS.has(w)) return false; // "keep it secret" is the pressure, not the object
  if (v.is(i, C.SECRET) || MONEY.has(w)) return true;
  if ((w === "routing" || w === "sort" || w === "swift" || w === "bic") && (NUMBERED.has(v.w(i + 1)) || v.t[i].punct === ":")) return true;
  if (CARD.has(w) && (GIFT.has(v.w(i - 1)) || v.w(i - 1) === "corporate" || v.w(i + 1) === "number" || v.w(i + 1) === "details"))
    return true;
  if (w === "w" && /^2s?$/.test(v.w(i + 1))) return true;
  if (PAPERS.has(w)) {
    const send = v.prev(i, 8, C.SEND); // "send me the signed NDA", not "I'll send you the list"
    if (send >= 0 && ME.has(v.w(send + 1)) && !v.is(send - 1, C.NEG)) return true;
  }
  return v.is(i, C.DATA) && (v.is(i - 1, C.QUANT) || v.is(i - 2, C.QUANT)); // "all email correspondence"
}

function isChannel(v: View, i: number): boolean {
  const t = v.t[i];
  if (t.link && t.w === "<email>") return FREEMAIL.test(v.text.slice(t.start, t.end));
  const w = v.w(i);
  if (PERSONAL.has(w) && ADDRESSLIKE.has(v.w(i + 1))) return true; // "my personal address"
  if (CHANGED.has(w) && (ACCOUNT.has(v.w(i + 1)) || ACCOUNT.has(v.w(i + 2)))) return true; // "our new remittance account"
  if (w === "reply" && REPLY_HERE.has(v.w(i + 1))) return true;
  if ((w === "reply" || w === "respond" || w === "write") && v.w(i + 1) === "only") return true; // "reply only to this address"
  if ((w === "here" || w === "directly") && v.prev(i, 6, C.SEND) >= 0) return true; // "send them to me here"
  if (w !== "portal") return false; // "the portal is down", "can't log into the portal"
  return (
    v.next(i, 4, (k) => v.w(k) === "down" || v.is(k, C.NEG)) >= 0 || v.prev(i, 6, (k) => v.w(k) === "cant" || v.w(k) === "cannot") >= 0
  );
}

// Secrecy ("keep it quiet", "between us") or a check skipped ("don't call", "no need to run it
// past legal", "rather than routing it through review"). Not "we will never ask you to call".
function isPressure(v: View, i: number): boolean {
  const w = v.w(i);
  if (w === "between_us" || w === "discreetly" || w === "discreet") return true;
  // "outside the normal workflow"
  if (w === "outside" && (USUAL.has(v.w(i + 1)) || USUAL.has(v.w(i + 2))) && v.next(i, 4, (k) => ROUTE.has(v.w(k))) >= 0) return true;
  // "I'll explain when I'm back": the reason withheld until it is too late to check
  if (w === "explain" && (v.w(i - 1) === "ill" || v.w(i - 1) === "will") && v.next(i, 3, (k) => LATER.has(v.w(k))) >= 0) return true;
  // "your CEO asked us to work directly with you": authority claimed for someone not on the mail
  if (AUTHORISED.has(w) && v.prev(i, 3, (k) => EXECUTIVE.has(v.w(k))) >= 0 && ME.has(v.w(i + 1))) return true;
  if (w === "keep" && KEPT.has(v.w(i + 1)) && v.next(i, 4, (k) => SECRET_WORDS.has(v.w(k))) >= 0) return true; // not "keep your private address safe"
  if (w === "anyone" && v.w(i - 1) === "if" && v.w(i + 1).startsWith("ask")) return true;
  const negated = BYPASS.has(w) || (w === "not" && (MUST_NOT.has(v.w(i - 1)) || v.w(i + 1) === "be"));
  if (!negated) return false;
  if (v.prev(i, 5, (k) => NOT_ORDER.has(v.w(k))) >= 0) return false;
  if (w === "rather" || w === "instead") {
    // "rather than routing it through review"; not "instead of building phone towers"
    if (v.w(i + 1) !== "than" && v.w(i + 1) !== "of") return false;
    const k = v.next(i + 1, 5, (k) => CHECKERS.has(v.w(k)) || (CHECKS.has(v.w(k)) && v.w(k).endsWith("ing")));
    return k >= 0 && !v.between(i, k, C.SEND);
  }
  const check = v.next(
    i,
    6,
    (k) =>
      CHECKS.has(v.w(k)) ||
      (w !== "without" && CHECKERS.has(v.w(k))) ||
      (v.w(k) === "run" && v.nextWord(k, 3, RUN_BY) >= 0) ||
      (v.w(k).startsWith("check") && v.w(k + 1) === "with"),
  );
  return check >= 0 && !v.between(i, check, C.SEND); // "do not share this code with anyone" guards, it bypasses nothing
}
