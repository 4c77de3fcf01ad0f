// Classification by evidence scores: each rule that fires adds weight to one label and names
// itself as a signal. Headers and MIME structure are written by software and hard to fake by
// accident, so they weigh most; content phrases weigh less and add up. Confidence is the
// softmax share of the winning score against every label (with a floor for "other"), so a
// lone weak phrase yields a low confidence and agreeing header and content evidence a high one.

import { readFileSync } from "node:fs";
import { type ComprehensionInput, extractFacts, type Facts, scanText } from "./extract.ts";
import { LABEL_NAMES, type Label } from "./labels.ts";

export type Classification = { label: Label; confidence: number; signals: string[] };

type Rule = { label: Label; signal: string; test: (f: Features) => boolean };

type Features = {
  input: ComprehensionInput;
  h: Record<string, string>;
  subject: string;
  head: string; // subject and the first part of the body, lower-cased
  body: string;
  facts: Facts;
  words: number;
  from: string;
  automated: boolean;
};

// Phrases are searched in the opening of the message: that is where mail says what it is, and
// it keeps the cost flat for long bodies.
const HEAD_CHARS = 4000;
// The numbers live in classify-weights.json beside this file: each rule's weight (keyed
// "<label> <signal>"), the score "other" holds by default (below it, nothing is claimed) and the
// factors of adjust() below.
type ClassifyWeights = {
  otherFloor: number;
  automatedPersonDamp: number;
  structuralAt: number;
  structuralDamp: number;
  rules: Record<string, number>;
};
export const CLASSIFY_WEIGHTS = JSON.parse(readFileSync(new URL("./classify-weights.json", import.meta.url), "utf8")) as ClassifyWeights;

const has = (re: RegExp) => (f: Features) => re.test(f.head);
const subj = (re: RegExp) => (f: Features) => re.test(f.subject);
const hdr =
  (name: string, re: RegExp = /./) =>
  (f: Features) =>
    re.test(f.h[name] ?? "");

const RULES: Rule[] = [
  // ---- structure and headers
  {
    label: "bounce",
    signal: "part:message/delivery-status",
    test: (f) =>
      f.input.contentTypes.some((t) => /^message\/(?:delivery-status|global-delivery-status)/i.test(t)) ||
      /report-type="?delivery-status/i.test(f.h["content-type"] ?? ""),
  },
  { label: "bounce", signal: "from:mailer-daemon", test: (f) => /^(?:mailer-daemon|postmaster|mail-daemon)@/i.test(f.from) },
  {
    label: "bounce",
    signal: "subject:delivery-failure",
    test: subj(
      /undeliver|delivery (?:status notification|has failed|failure)|mail delivery (?:failed|subsystem)|returned mail|failure notice|could not be delivered/i,
    ),
  },
  {
    label: "bounce",
    signal: "content:delivery-failure",
    test: has(
      /could not be delivered|wasn't delivered|address (?:couldn't|could not) be found|recipient address rejected|user unknown|mailbox unavailable|550[ -]5\.\d\.\d/,
    ),
  },
  {
    label: "calendar",
    signal: "part:text/calendar",
    test: (f) =>
      f.input.contentTypes.some((t) => /^text\/calendar/i.test(t)) ||
      f.input.attachments.some((a) => /^text\/calendar/i.test(a.contentType) || /\.ics$/i.test(a.filename ?? "")),
  },
  {
    label: "calendar",
    signal: "subject:invitation",
    test: subj(
      /^(?:(?:updated )?invitation|invite|accepted|declined|tentative(?:ly accepted)?|canceled event|cancelled event|event canceled|new event)\b|\binvitation: /i,
    ),
  },
  {
    label: "calendar",
    signal: "content:meeting",
    test: has(/\b(?:join (?:zoom|google meet|microsoft teams|the meeting)|meeting link|add to calendar|rsvp|calendar invite)\b/),
  },
  { label: "auto_reply", signal: "header:auto-submitted=auto-replied", test: hdr("auto-submitted", /auto-replied/i) },
  { label: "auto_reply", signal: "header:x-autoreply", test: (f) => "x-autoreply" in f.h || "x-autorespond" in f.h },
  { label: "auto_reply", signal: "header:precedence=auto_reply", test: hdr("precedence", /auto_reply/i) },
  {
    label: "auto_reply",
    signal: "subject:auto-reply",
    test: subj(/^(?:auto(?:matic)?[ -]?(?:reply|response)|auto:|out of (?:the )?office|ooo\b|away:|abwesenheit|r[ée]ponse automatique)/i),
  },
  {
    label: "auto_reply",
    signal: "content:away",
    test: has(
      /\b(?:i am|i'm|i will be) (?:currently )?(?:out of (?:the )?office|away|on (?:vacation|holiday|leave|parental leave))|limited access to (?:my )?e-?mail|will respond (?:to your (?:email|message) )?(?:when|upon) (?:i|my) return|this is an automatic (?:reply|response)|we(?:'ve| have) received your (?:request|message|email|ticket)\b[^\n]{0,80}(?:respond|get back|reply)/,
    ),
  },
  { label: "newsletter", signal: "header:list-id", test: (f) => "list-id" in f.h },
  { label: "newsletter", signal: "header:list-unsubscribe", test: (f) => "list-unsubscribe" in f.h },
  { label: "marketing", signal: "header:list-unsubscribe", test: (f) => "list-unsubscribe" in f.h && !("list-id" in f.h) },
  { label: "marketing", signal: "header:precedence=bulk", test: hdr("precedence", /bulk|junk/i) },
  { label: "newsletter", signal: "header:precedence=list", test: hdr("precedence", /^list/i) },
  {
    label: "notification",
    signal: "header:auto-submitted=auto-generated",
    test: hdr("auto-submitted", /auto-generated|auto-notified/i),
  },
  {
    label: "notification",
    signal: "from:no-reply",
    test: (f) => /^(?:no-?reply|do-?not-?reply|notifications?|alerts?|notify|updates?)[@+.-]/i.test(f.from),
  },

  // ---- codes and links
  { label: "verification_code", signal: "fact:verification_code", test: (f) => f.facts.verification_codes.length > 0 },
  {
    label: "verification_code",
    signal: "content:one-time-code",
    test: has(
      /\b(?:verification code|security code|one[- ]time (?:code|password|passcode|pin)|otp|passcode|confirmation code|login code|sign[- ]in code|2fa code|authentication code)\b/,
    ),
  },
  {
    label: "password_reset",
    signal: "content:password-reset",
    test: has(
      /\b(?:reset (?:your |the )?password|password reset|forgot (?:your )?password|choose a new password|set a new password|change your password using)\b/,
    ),
  },
  { label: "password_reset", signal: "fact:reset_link", test: (f) => f.facts.password_reset_links.length > 0 },
  { label: "sign_in_link", signal: "fact:sign_in_link", test: (f) => f.facts.sign_in_links.length > 0 },
  {
    label: "sign_in_link",
    signal: "content:magic-link",
    test: has(
      /\b(?:magic link|sign[- ]in link|login link|click (?:the (?:link|button) )?(?:below )?to (?:sign|log) in|(?:sign|log) in to your account (?:by|with|using)|confirm your (?:email|e-mail) address|verify your (?:email|e-mail)(?: address)?|activate your account)\b/,
    ),
  },

  // ---- commerce
  { label: "transactional_receipt", signal: "fact:order_number", test: (f) => f.facts.order_numbers.length > 0 },
  { label: "transactional_receipt", signal: "fact:amount", test: (f) => f.facts.amounts.length > 0 },
  {
    label: "transactional_receipt",
    signal: "content:receipt",
    test: has(
      /\b(?:receipt|invoice|payment (?:received|confirmation|successful)|order confirm(?:ed|ation)|thank you for your (?:order|purchase|payment)|amount (?:paid|charged|due)|subtotal|total (?:paid|charged)|billing statement|your (?:order|purchase) (?:of|from)|we(?:'ve| have) received your (?:order|payment))\b/,
    ),
  },
  { label: "shipping", signal: "fact:tracking_number", test: (f) => f.facts.tracking_numbers.length > 0 },
  {
    label: "shipping",
    signal: "content:shipment",
    test: has(
      /\b(?:has (?:been )?shipped|is on (?:its|the) way|out for delivery|(?:was|has been) delivered|delivery (?:attempt|exception|update)|track (?:your|my) (?:package|order|shipment)|tracking (?:number|#|info)|shipment|estimated delivery|expected delivery|arriving (?:today|tomorrow|on))\b/,
    ),
  },

  // ---- people writing
  {
    label: "support_request",
    signal: "content:problem",
    test: has(
      /\b(?:(?:doesn't|does not|don't|do not|isn't|is not|won't|can't|cannot|can not|unable to|not able to) (?:work|load|log ?in|sign ?in|access|connect|open|sync|see|find|get)|not working|stopped working|keeps? (?:crashing|failing)|crash(?:es|ed|ing)?|broken|(?:an?|the|this|same) error|error (?:message|code)|bug\b|(?:having|have|got) (?:an? )?(?:issue|problem|trouble)|locked out|refund|charged twice)/,
    ),
  },
  {
    label: "support_request",
    signal: "content:asks-help",
    test: has(
      /\b(?:please help|can you help|could you (?:help|look|check)|need help|need assistance|help me|support team|any idea why|what am i doing wrong|is there a way to fix)\b/,
    ),
  },
  {
    label: "sales_inquiry",
    signal: "content:buying-intent",
    test: has(
      /\b(?:pricing|price list|quote|quotation|demo\b|enterprise (?:plan|tier|license|pricing)|volume discount|how much (?:does|would|is|for)|purchase (?:\d+ )?(?:licenses|seats)|interested in (?:your|buying|purchasing|using)|(?:talk|speak) (?:to|with) (?:sales|someone)|evaluat(?:e|ing) (?:your|the) (?:product|platform|tool)|procurement|rfp\b|sla\b|seats? for (?:our|my) team)/,
    ),
  },
  {
    label: "sales_inquiry",
    signal: "content:company-context",
    test: has(
      /\b(?:our (?:team|company|organization|startup) (?:is|of|has)|we are (?:a|an) \w+ (?:company|team|startup|agency)|for (?:our|my) (?:team|company))\b/,
    ),
  },
  {
    label: "personal",
    signal: "shape:short-conversational",
    test: (f) => !f.automated && f.words <= 150 && /^(?:hi|hey|hello|dear|yo|morning|good (?:morning|afternoon|evening))\b/im.test(f.body),
  },
  {
    label: "personal",
    signal: "content:social",
    test: has(
      /\b(?:lunch|dinner|coffee|drinks|weekend|birthday|catch up|how are you|how have you been|miss you|love,|hugs|the kids|mom|dad|party|congrats|congratulations|vacation photos|see you (?:soon|tomorrow|there))\b/,
    ),
  },
  { label: "personal", signal: "subject:reply-thread", test: (f) => !f.automated && /^(?:re|fwd?|aw|sv):/i.test(f.subject) },
  { label: "personal", signal: "shape:human-sender", test: (f) => !f.automated && f.words <= 300 },

  // ---- bulk and automated content
  {
    label: "newsletter",
    signal: "content:editorial",
    test: has(
      /\b(?:newsletter|digest|this week(?:'s)? (?:in|issue|edition|roundup)|in this (?:issue|edition)|(?<!(?:on|in|to|this|for|about) )issue #?\d+|edition|read (?:more|the full (?:story|article|post))|weekly (?:roundup|update|recap)|top stories|from the blog|view (?:this email )?in (?:your )?browser)\b/,
    ),
  },
  {
    label: "marketing",
    signal: "content:promotion",
    test: has(
      /(?:\d{1,2}% off|\bsale\b|\bdiscount|\blimited[- ]time|\bshop now|\bbuy now|\bdeals?\b|\boffer ends|\bfree shipping|\bpromo code|\bcoupon|\bexclusive (?:offer|access|deal)|\bdon't miss|\blast chance|\bupgrade (?:now|today)|\bnew arrivals|\bblack friday|\bcyber monday|\bsave (?:up to|\$|\d))/,
    ),
  },
  {
    label: "notification",
    signal: "content:thread-activity",
    test: has(
      /\b(?:reply to this email directly|view it on [a-z]+|you are receiving this because you (?:were mentioned|are subscribed to this thread|authored the thread|were assigned|are watching))\b/,
    ),
  },
  {
    label: "notification",
    signal: "content:alert",
    test: has(
      /\b(?:new sign-?in|security alert|(?:commented|replied) on|mentioned you|assigned (?:you|to you)|you have (?:a )?new|your (?:\w+ )?(?:was|has been) (?:updated|changed|approved|published|merged|deployed|renewed)|reminder:|notification|alert:|build (?:failed|passed|succeeded)|pull request|(?:storage|usage|quota) (?:is |at )?(?:almost |nearly )?(?:full|\d+%)|(?:failed|successful) (?:login|payment) attempt|your subscription (?:will|has))\b/,
    ),
  },
];

/** Every rule with its weight from the data file; a rule without one is a mistake caught at load. */
export const WEIGHTED_RULES = RULES.map((rule) => {
  const weight = CLASSIFY_WEIGHTS.rules[ruleKey(rule)];
  if (typeof weight !== "number") throw new Error(`classify-weights.json has no weight for ${ruleKey(rule)}`);
  return { ...rule, weight };
});

export function ruleKey(rule: { label: string; signal: string }): string {
  return `${rule.label} ${rule.signal}`;
}

export function classifyMessage(input: ComprehensionInput, facts: Facts = extractFacts(input)): Classification {
  const f = features(input, facts);
  const scores = new Map<Label, number>(LABEL_NAMES.map((l) => [l, 0]));
  const signals = new Map<Label, string[]>(LABEL_NAMES.map((l) => [l, []]));
  scores.set("other", CLASSIFY_WEIGHTS.otherFloor);
  for (const rule of WEIGHTED_RULES) {
    if (!rule.test(f)) continue;
    scores.set(rule.label, scores.get(rule.label)! + rule.weight);
    signals.get(rule.label)!.push(rule.signal);
  }
  adjust(f, scores);

  let best: Label = "other";
  for (const [label, score] of scores) if (score > scores.get(best)!) best = label;
  const total = [...scores.values()].reduce((sum, s) => sum + Math.exp(s), 0);
  // Rules are evidence, never proof: the top is 0.99.
  const confidence = Math.min(0.99, Math.round((Math.exp(scores.get(best)!) / total) * 100) / 100);
  return { label: best, confidence, signals: best === "other" ? ["no-strong-signal"] : signals.get(best)! };
}

// Interactions one rule cannot express: mail that is plainly automated is not a person
// writing, and a list message that sells is marketing, one that informs is a newsletter.
function adjust(f: Features, scores: Map<Label, number>): void {
  if (f.automated) {
    for (const l of ["personal", "support_request", "sales_inquiry"] as const)
      scores.set(l, scores.get(l)! * CLASSIFY_WEIGHTS.automatedPersonDamp);
  }
  const structural = ["bounce", "calendar", "auto_reply"] as const;
  if (structural.some((l) => scores.get(l)! >= CLASSIFY_WEIGHTS.structuralAt)) {
    for (const l of ["newsletter", "marketing", "notification", "transactional_receipt"] as const)
      scores.set(l, scores.get(l)! * CLASSIFY_WEIGHTS.structuralDamp);
  }
}

function features(input: ComprehensionInput, facts: Facts): Features {
  const h = input.headers;
  const text = scanText(input);
  const from = input.fromAddr.trim().toLowerCase();
  const automated =
    "list-id" in h ||
    "list-unsubscribe" in h ||
    /auto-/i.test(h["auto-submitted"] ?? "") ||
    /bulk|list|junk|auto_reply/i.test(h.precedence ?? "") ||
    /^(?:no-?reply|do-?not-?reply|notifications?|alerts?|mailer-daemon|postmaster|noreply)[@+.-]/i.test(from);
  const body = input.bodyClean.slice(0, HEAD_CHARS);
  return {
    input,
    h,
    subject: input.subject,
    head: text.slice(0, HEAD_CHARS).toLowerCase(),
    body,
    facts,
    words: body.split(/\s+/).filter(Boolean).length,
    from,
    automated,
  };
}
