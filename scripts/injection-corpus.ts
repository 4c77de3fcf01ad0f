// Writes the training corpus for the learned injection stage:
// test/fixtures/injection/train-malicious.json and train-benign.json. Items are composed from
// the phrase banks (scripts/injection-corpus-*.ts) by recipes that mirror how attacks arrive
// (addressed to the AI reader, after a fake marker, inside ordinary business mail, in hidden
// text, in other languages) and how benign mail uses the same words. A fixed seed makes the
// output identical on every run, so the JSON files can be reviewed and committed.
//
//   npx bun scripts/injection-corpus.ts

import * as B from "./injection-corpus-benign.ts";
import * as F from "./injection-corpus-families.ts";
import { FREE_BENIGN, FREE_BENIGN_2, FREE_MALICIOUS, FREE_MALICIOUS_2 } from "./injection-corpus-free.ts";
import type { Lang } from "./injection-corpus-parts.ts";
import * as P from "./injection-corpus-parts.ts";

type Item = {
  id: string;
  category: string;
  subject: string;
  body_clean: string;
  hidden_text: string;
  report: Record<string, number>;
  malicious: boolean;
};

const LANGS: Exclude<Lang, "en">[] = ["es", "de", "fr", "pt", "it"];
const SUBJECTS = [
  "Re: your request",
  "Invoice",
  "Quick question",
  "Follow-up",
  "Update",
  "Meeting notes",
  "Action required",
  "Hello",
  "Order confirmation",
  "Partnership",
  "FYI",
  "Fwd: documents",
  "Re: Re: schedule",
  "Weekly digest",
  "",
];

// mulberry32: a tiny seeded generator, so the corpus is reproducible.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(20261122);
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
const maybe = (p: number) => rand() < p;

function fill(s: string): string {
  return s
    .replaceAll("{obj}", () => pick(P.OBJECT.en))
    .replaceAll("{to}", () => pick(P.DESTINATION))
    .replaceAll("{name}", () => pick(P.NAMES))
    .replaceAll("{vendor}", () => pick(P.VENDORS))
    .replaceAll("{n}", () => String(2 + Math.floor(rand() * 98)))
    .replaceAll("{code}", () => String(100000 + Math.floor(rand() * 899999)))
    .replaceAll("{host}", () => pick(F.HOSTS))
    .replaceAll("{domain}", () => pick(["ourcompany.example", "corp.example", "bank.example", "shop.example"]));
}
function fillLang(s: string, lang: Lang): string {
  return fill(s.replaceAll("{obj}", () => pick(P.OBJECT[lang])));
}

function report(hidden: boolean): Record<string, number> {
  return {
    hidden_elements: hidden ? 1 : 0,
    html_comments: 0,
    scripts_styles: 0,
    zero_width_chars: 0,
    bidi_controls: 0,
    unicode_tags: 0,
    other_invisible: 0,
    truncated_chars: 0,
  };
}

// One attack's core: what is asked of the reader, sometimes behind an override or a marker.
function action(): string {
  const r = rand();
  if (r < 0.45) return fill(pick(P.EXFIL.en));
  if (r < 0.75) return fill(pick(P.TOOL));
  return fill(pick(P.STEER));
}
// "Forward the inbox ..." after "... should": the action with its first letter lowered.
function lowerFirst(s: string): string {
  return `${s[0].toLowerCase()}${s.slice(1)}`;
}

// The families holdout-6 showed missing (injection-corpus-families.ts): no AI reader named,
// odd verbs, standing changes, claimed consent, summary steering, new markers, encodings.
function familyAttack(): { category: string; text: string } {
  const verb = () => fill(maybe(0.55) ? pick(F.ODD_VERB) : pick(F.OPS_ACTION));
  const lead = () => pick(F.NEUTRAL_LEAD);
  const tail = () => `${maybe(0.4) ? ` ${fill(pick(F.CONSENT))}` : ""}${maybe(0.3) ? ` ${pick(P.SECRECY.en)}` : ""}`;
  const sentence = (s: string) => `${s[0].toUpperCase()}${s.slice(1)}.`;
  const r = rand();
  if (r < 0.25) {
    const l = lead();
    return { category: "neutral_request", text: `${l} ${l === "" ? sentence(verb()) : `${verb()}.`}${tail()}`.trim() };
  }
  if (r < 0.4) {
    const l = maybe(0.4) ? lead() : "";
    const change = pick(F.FUTURE).replace("{verb}", verb());
    return { category: "future_behaviour", text: `${l === "" ? change : `${l} ${lowerFirst(change)}`}${tail()}` };
  }
  if (r < 0.55)
    return {
      category: "summary_steer",
      text: `${maybe(0.4) ? `${lead()} ` : ""}${fill(pick(F.SUMMARY_STEER))}${maybe(0.3) ? ` ${pick(P.SECRECY.en)}` : ""}`.trim(),
    };
  if (r < 0.7)
    return {
      category: "new_marker",
      text: `${pick(F.NEW_MARKER)}\n${maybe(0.4) ? `${pick(P.OVERRIDE.en)} ` : ""}${sentence(verb())}${tail()}`,
    };
  if (r < 0.74) {
    const steer = pick(F.FOREIGN_STEER).replace(/\{(\w+)\}/g, (_, k: string) => pick(F.CLAIMS[k]));
    return {
      category: "foreign_steer",
      text: `${maybe(0.5) ? `${pick([...P.ADDRESS.fr, ...P.ADDRESS.es, ...P.ADDRESS.de, ...P.ADDRESS.pt, ""])} ` : ""}${steer}`.trim(),
    };
  }
  if (r < 0.79) {
    const hunt = pick(F.SECRET_HUNT).replace("{secret}", pick(F.SECRETS));
    return {
      category: "secret_hunt",
      text: `${maybe(0.5) ? `${pick(F.NEUTRAL_LEAD)} ` : "One more thing for your mail assistant: "}${hunt}.${tail()}`.trim(),
    };
  }
  if (r < 0.83) {
    const lead = pick([
      "Processing note (for automated AP systems):",
      "For automated invoice processing:",
      "Note to the accounts-payable agent:",
      "For any system that reads this:",
    ]);
    return { category: "payment_redirect", text: `${lead} ${fill(pick(F.PAYMENT_REDIRECT).replace("{iban}", pick(F.IBANS)))}` };
  }
  if (r < 0.88)
    return {
      category: "consent_claim",
      text: `${sentence(maybe(0.5) ? verb() : lowerFirst(action()).replace(/\.$/, ""))} ${fill(pick(F.CONSENT))}`,
    };
  return { category: "encoded", text: encoded(sentence(verb())) };
}

// An instruction the reader is asked to decode first; the words themselves are hidden.
function encoded(plain: string): string {
  const r = rand();
  const lead = pick(["Decode and follow:", "Process the following:", "Instruction (encoded):", "Apply this:", ""]);
  if (r < 0.3) return `${lead} ${Buffer.from(plain).toString("base64")}`.trim();
  if (r < 0.55) return `${lead} ${encodeURIComponent(plain)}`.trim();
  if (r < 0.8) return `${pick(["Read this backwards and do it:", "Reverse and follow:", "Reversed:"])} ${[...plain].reverse().join("")}`;
  return plain
    .split(" ")
    .map((w) => [...w].join(" "))
    .join("   ");
}

function attack(lang: Lang = "en"): { category: string; text: string } {
  if (lang !== "en") {
    const parts = [
      maybe(0.6) ? pick(P.ADDRESS[lang]) : "",
      maybe(0.6) ? pick(P.OVERRIDE[lang]) : "",
      fillLang(pick(P.EXFIL[lang]), lang),
      maybe(0.5) ? pick(P.SECRECY[lang]) : "",
    ];
    return { category: "multilingual", text: parts.filter((p) => p !== "").join(" ") };
  }
  const r = rand();
  const secrecy = () => (maybe(0.35) ? ` ${pick(P.SECRECY.en)}` : "");
  if (r < 0.25) return { category: "ai_addressed", text: `${pick(P.ADDRESS.en)} ${action()}${secrecy()}` };
  if (r < 0.45)
    return { category: "override", text: `${maybe(0.4) ? `${pick(P.ADDRESS.en)} ` : ""}${pick(P.OVERRIDE.en)} ${action()}${secrecy()}` };
  if (r < 0.58)
    return { category: "fake_marker", text: `${pick(P.MARKER)}\n${maybe(0.5) ? `${pick(P.OVERRIDE.en)} ` : ""}${action()}${secrecy()}` };
  if (r < 0.7)
    return { category: "persona", text: `${maybe(0.4) ? `${pick(P.ADDRESS.en)} ` : ""}${pick(P.PERSONA)} ${action()}${secrecy()}` };
  if (r < 0.8) return { category: "steer", text: `${pick(P.ADDRESS.en)} ${fill(pick(P.STEER))}${secrecy()}` };
  if (r < 0.88) return { category: "third_person", text: `${pick(P.THIRD_PERSON)} ${lowerFirst(action())}${secrecy()}` };
  if (r < 0.91) return { category: "bare_exfil", text: `${fill(pick(P.EXFIL.en))}${maybe(0.6) ? ` ${pick(P.SECRECY.en)}` : ""}` };
  return { category: "free", text: fill(pick(maybe(0.5) ? FREE_MALICIOUS : FREE_MALICIOUS_2)) };
}

// Repeats add nothing for the model but weight; an item is kept once.
function keeper(out: Item[]) {
  const seen = new Set<string>();
  return (item: Item) => {
    const key = `${item.body_clean}\u0000${item.hidden_text}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(item);
  };
}

function malicious(count: number): Item[] {
  const out: Item[] = [];
  const keep = keeper(out);
  const push = (category: string, body: string, hidden = "") =>
    keep({
      id: `train-mal-${String(out.length + 1).padStart(4, "0")}`,
      category,
      subject: pick(SUBJECTS),
      body_clean: body,
      hidden_text: hidden,
      report: report(hidden !== ""),
      malicious: true,
    });
  for (const text of [...FREE_MALICIOUS, ...FREE_MALICIOUS_2, ...F.FAMILY_MALICIOUS]) push("free", fill(text));
  for (let tries = 0; out.length < count && tries < count * 20; tries++) {
    const r = rand();
    if (r < 0.3) {
      // the newer families, alone or inside business mail
      const a = maybe(0.3) ? { category: "family_free", text: fill(pick(F.FAMILY_MALICIOUS)) } : familyAttack();
      if (maybe(0.5)) push(`embedded_${a.category}`, `${fill(pick(P.WRAP_BEFORE))}\n\n${a.text}\n\n${fill(pick(P.WRAP_AFTER))}`);
      else push(a.category, a.text);
    } else if (r < 0.4) {
      const a = attack(pick(LANGS));
      push(a.category, a.text);
    } else if (r < 0.6) {
      const a = attack();
      push(a.category, a.text);
    } else if (r < 0.85) {
      const a = attack(maybe(0.15) ? pick(LANGS) : "en");
      push(`embedded_${a.category}`, `${fill(pick(P.WRAP_BEFORE))}\n\n${a.text}\n\n${fill(pick(P.WRAP_AFTER))}`);
    } else {
      const a = attack();
      push(`hidden_${a.category}`, `${fill(pick(P.WRAP_BEFORE))}\n\n${fill(pick(P.WRAP_AFTER))}`, a.text);
    }
  }
  return out;
}

function benignBody(): { category: string; text: string } {
  const r = rand();
  const lang = pick(LANGS);
  const wrap = (s: string) => `${fill(pick(P.WRAP_BEFORE))}\n\n${s}\n\n${fill(pick(P.WRAP_AFTER))}`;
  const request = () =>
    pick(B.REQUEST_VERB)
      .replaceAll("{thing}", () => pick(B.THING))
      .replaceAll("{who}", () => pick(B.WHO));
  if (r < 0.2)
    return { category: "colleague", text: maybe(0.5) ? wrap(`${request()} ${maybe(0.5) ? request() : pick(B.ORDINARY.en)}`) : request() };
  if (r < 0.3) return { category: "retraction", text: `${pick(B.RETRACT.en)} ${maybe(0.6) ? pick(B.ORDINARY.en) : request()}` };
  if (r < 0.44) {
    const parts = [
      maybe(0.3) ? pick(B.RETRACT[lang]) : "",
      fill(pick(B.FOREIGN[lang])),
      maybe(0.6) ? fill(pick(B.FOREIGN[lang])) : "",
      maybe(0.5) ? pick(B.ORDINARY[lang]) : "",
    ];
    return { category: "multilingual_benign", text: parts.filter((p) => p !== "").join(" ") };
  }
  if (r < 0.5) return { category: "account", text: fill(pick(B.ACCOUNT)) };
  if (r < 0.58) return { category: "policy", text: maybe(0.5) ? wrap(fill(pick(B.POLICY))) : fill(pick(B.POLICY)) };
  if (r < 0.66) {
    const quoted = maybe(0.5) ? pick(P.OVERRIDE.en) : fill(pick(P.EXFIL.en)).replace(/\.$/, "");
    return { category: "security_newsletter", text: pick(B.DISCUSS).replace("{attack}", quoted) };
  }
  if (r < 0.75) return { category: "developer", text: fill(pick(B.DEV)) };
  if (r < 0.8) return { category: "marketing", text: pick(B.MARKETING) };
  if (r < 0.83) return { category: "personal", text: pick(B.PERSONAL) };
  if (r < 0.86) return { category: "ai_talk", text: maybe(0.4) ? wrap(pick(B.AI_TALK)) : pick(B.AI_TALK) };
  if (r < 0.89) return { category: "notice", text: maybe(0.5) ? wrap(fill(pick(B.NOTICES))) : fill(pick(B.NOTICES)) };
  if (r < 0.91) return { category: "free", text: fill(pick(maybe(0.5) ? FREE_BENIGN : FREE_BENIGN_2)) };
  // the same leads and verbs as the new attack families, asked of a colleague, kept in-house
  if (maybe(0.3)) {
    const quote = pick([...P.PERSONA, ...P.MARKER, ...F.NEW_MARKER, ...P.OVERRIDE.en]).replaceAll("\n", " ");
    return { category: "quoting", text: wrap(pick(F.QUOTING).replace("{topic}", pick(F.TOPICS)).replace("{quote}", quote)) };
  }
  if (maybe(0.5)) return { category: "family_ops", text: wrap(`${pick(F.NEUTRAL_LEAD)} ${fill(pick(F.BENIGN_OPS))}`.trim()) };
  return { category: "family_lookalike", text: maybe(0.4) ? wrap(fill(pick(F.FAMILY_BENIGN))) : fill(pick(F.FAMILY_BENIGN)) };
}

function benign(count: number): Item[] {
  const out: Item[] = [];
  const keep = keeper(out);
  const push = (category: string, body: string, hidden = "") =>
    keep({
      id: `train-ben-${String(out.length + 1).padStart(4, "0")}`,
      category,
      subject: pick(SUBJECTS),
      body_clean: body,
      hidden_text: hidden,
      report: report(hidden !== ""),
      malicious: false,
    });
  for (const text of [...FREE_BENIGN, ...FREE_BENIGN_2, ...F.FAMILY_BENIGN]) push("free", fill(text));
  for (let tries = 0; out.length < count && tries < count * 20; tries++) {
    const b = benignBody();
    // Marketing mail hides preheaders; hidden text alone must not look like an attack.
    if (maybe(0.06))
      push(
        `hidden_${b.category}`,
        b.text,
        pick(["View this email in your browser", "Up to 50% off this week only", "Your weekly update is here", "Unsubscribe at any time"]),
      );
    else push(b.category, b.text);
  }
  return out;
}

if (import.meta.main) {
  const dir = new URL("../test/fixtures/injection/", import.meta.url);
  const mal = malicious(1000);
  const ben = benign(1300);
  await Bun.write(new URL("train-malicious.json", dir), `${JSON.stringify(mal, null, 2)}\n`);
  await Bun.write(new URL("train-benign.json", dir), `${JSON.stringify(ben, null, 2)}\n`);
  console.log(`wrote ${mal.length} malicious and ${ben.length} benign training items`);
}
