// Sender risk: whether a message may not be what it claims, from what an attacker cannot hide
// (DMARC alignment of From, where replies and payments would go, a display name borrowed from
// someone the account knows, a domain made to look like a known one, first contact, links whose
// text and target differ) and from what a payment fraud must ask (bank details changed, money or
// gift cards now, the usual checks skipped). Each finding is a named signal with a weight; the
// level is `elevated` at ELEVATED points and `high` at HIGH. The weights and both cut-offs are
// fitted (scripts/fit-sender-risk.ts writes weights.json) on the training parts of
// test/fixtures/sender-risk, starting from and pulled toward the weights each rule was written
// with (PRIOR_WEIGHTS); the blind parts score them (scripts/eval-sender-risk.ts).
import { readFileSync } from "node:fs";
import { readWording } from "../../mail/payment-wording.ts";
import { type Domain, domainOfAddress, imitation, isFreemail } from "./domains.ts";
import { linkMismatches } from "./links.ts";

export type SenderRiskLevel = "low" | "elevated" | "high";
export type SenderRiskSignal = { name: string; detail: string };
export type SenderRisk = { level: SenderRiskLevel; score: number; signals: SenderRiskSignal[] };

type Auth = { spf: string; dkim: string; dmarc: string } | null;

/** What the account and this mailbox know, read from the database (src/core/screening/sender-risk.ts). */
export type SenderContext = {
  /** domains of the account's mailboxes and people */
  accountDomains: string[];
  /** dashboard users and other people of the account */
  people: { name: string | null; email: string }[];
  mailboxes: { address: string; displayName: string | null }[];
  /** addresses this mailbox has exchanged mail with, with a display name seen and a count */
  correspondents: { address: string; name: string | null; messages: number; sentTo?: boolean }[];
};

export type SenderRiskInput = {
  /** the From header as written (`"Name" <address>`), or the bare address */
  fromHeader: string;
  fromAddr: string;
  replyTo: string | null;
  /**
   * List-Id (or another List-* header's value): a mailing list rewrites and re-signs, which breaks
   * DMARC for honest senders, and sets Reply-To to itself or to the poster
   */
  listId: string | null;
  subject: string;
  body: string;
  auth: Auth;
  context: SenderContext;
  /** the account corrected earlier mail from this address as fraud */
  reportedFraud?: boolean;
};

/** The weight each rule was written with: the fit's starting point and what it is pulled toward. */
export const PRIOR_WEIGHTS = {
  reported_fraud_sender: 4,
  dmarc_fail: 2.5,
  dmarc_fail_list: 1.5,
  not_authenticated_known_domain: 1.5,
  reply_to_elsewhere: 1,
  reply_to_freemail: 2,
  display_name_impersonation: 3,
  display_name_resembles_account: 2,
  lookalike_domain: 4,
  first_contact: 0.5,
  payment_change: 1.5,
  payment_change_verified: 0.5,
  payment_details: 0.5,
  money_request: 1,
  pressure: 1.5,
  payment_address_elsewhere: 1.5,
  link_mismatch: 1,
  link_mismatch_known: 3,
} as const;
type SignalName = keyof typeof PRIOR_WEIGHTS;
type FittedWeights = { elevated: number; high: number; weights: Record<SignalName, number> };
const FITTED = JSON.parse(readFileSync(new URL("./weights.json", import.meta.url), "utf8")) as FittedWeights;
export const WEIGHTS: Record<SignalName, number> = { ...PRIOR_WEIGHTS, ...FITTED.weights };
export const ELEVATED = FITTED.elevated;
export const HIGH = FITTED.high;

const PAYMENT_NEAR =
  /remit|payment|pay\b|invoice|transfer|wire|bank|iban|proof|receipt|virement|paiement|facture|zahlung|rechnung|überweis|pago|factura|comprobante|transferencia|pagamento|bonifico|fattura|contabile|betaling|factuur|pagamento|fatura|comprovativo|przelew|faktur|送金|振込|請求/i;

const normalizeName = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** "laura.becker@x" → "laura becker"; a single word is too common to be a name. */
export function nameFromAddress(address: string): string | null {
  const local = address.split("@")[0] ?? "";
  const parts = local.split(/[._-]+/).filter((p) => /^\p{L}{2,}$/u.test(p));
  return parts.length >= 2 ? parts.slice(0, 3).join(" ").toLowerCase() : null;
}

export function displayNameOf(fromHeader: string): string {
  const m = /^\s*"?([^"<]*?)"?\s*</.exec(fromHeader);
  return m ? m[1]!.trim() : "";
}

/** Whole-word containment of a name of two or more words (or one long word) in a display name. */
function nameIn(display: string, name: string | null): boolean {
  if (!name) return false;
  const n = normalizeName(name);
  if (!n || (n.split(" ").length < 2 && n.length < 8)) return false;
  return ` ${display} `.includes(` ${n} `);
}

const domainsOf = (addresses: string[]) => addresses.map(domainOfAddress).filter((d): d is Domain => d !== null);

export function assessSenderRisk(input: SenderRiskInput): SenderRisk {
  const signals: (SenderRiskSignal & { weight: number })[] = [];
  const add = (name: keyof typeof WEIGHTS, detail: string) => signals.push({ name, detail, weight: WEIGHTS[name] });
  const { context } = input;
  const fromAddr = input.fromAddr.trim().toLowerCase();
  const from = domainOfAddress(fromAddr);
  const display = normalizeName(displayNameOf(input.fromHeader));

  const accountDomains = [
    ...new Set(
      [
        ...context.accountDomains,
        ...context.mailboxes.map((m) => m.address.split("@")[1] ?? ""),
        ...context.people.map((p) => p.email.split("@")[1] ?? ""),
      ]
        .map((d) => d.toLowerCase())
        .filter(Boolean),
    ),
  ];
  const accountDomainSet = new Set(domainsOf(accountDomains.map((d) => `x@${d}`)).map((d) => d.registrable));
  const known = context.correspondents.filter((c) => c.sentTo || c.messages >= 2);
  const knownDomains = new Map<string, Domain>();
  for (const d of domainsOf([...known.map((c) => c.address), ...accountDomains.map((d) => `x@${d}`)]))
    if (!isFreemail(d)) knownDomains.set(d.registrable, d);
  const knownAddresses = new Set(known.map((c) => c.address.toLowerCase()));
  const isKnownDomain = (d: Domain | null) => d !== null && (knownDomains.has(d.registrable) || accountDomainSet.has(d.registrable));
  const lookalikeOf = (d: Domain | null): string | null => {
    if (!d || isKnownDomain(d)) return null;
    for (const k of knownDomains.values()) {
      const how = imitation(d, k);
      if (how) return `${d.host} ${how}`;
    }
    return null;
  };

  if (input.reportedFraud) add("reported_fraud_sender", `this account corrected earlier mail from ${fromAddr} as fraud`);

  // A list header is the sender's to write: it softens only what lists really do. Replies to the
  // list's own domain, or any Reply-To when From is no one the mailbox knows (who is there to
  // impersonate?); DMARC failure weighs less, but still counts for a known domain.
  const listDomain = input.listId
    ? (/<([^<>\s]+)>/.exec(input.listId)?.[1] ?? input.listId).trim().toLowerCase().split(".").slice(-2).join(".")
    : "";
  const listReply = (reply: Domain) =>
    Boolean(input.listId) && ((listDomain !== "" && reply.host.endsWith(listDomain)) || !isKnownDomain(from));

  // Authentication of the From domain (DMARC passes only when aligned with From).
  const auth = input.auth;
  if (auth?.dmarc === "fail") {
    if (input.listId) add("dmarc_fail_list", `From ${from?.registrable ?? fromAddr} failed DMARC on a mailing list (lists often break it)`);
    else add("dmarc_fail", `From ${from?.registrable ?? fromAddr} failed DMARC: the domain did not send this`);
  } else if (auth && auth.dmarc !== "pass" && isKnownDomain(from)) {
    add(
      "not_authenticated_known_domain",
      `From ${from!.registrable}, a known domain, without DMARC (${auth.dmarc}): anyone could have written this From`,
    );
  }

  // The From domain made to look like a known one.
  const fromLookalike = lookalikeOf(from);
  if (fromLookalike) add("lookalike_domain", `From domain ${fromLookalike}`);

  // Where replies would go.
  const replyAddr = input.replyTo ? (/<([^<>]+)>/.exec(input.replyTo)?.[1] ?? input.replyTo).trim().toLowerCase() : null;
  const reply = replyAddr ? domainOfAddress(replyAddr) : null;
  if (reply && from && reply.registrable !== from.registrable) {
    const replyLookalike = lookalikeOf(reply);
    if (replyLookalike) add("lookalike_domain", `Reply-To domain ${replyLookalike}`);
    else if (!isKnownDomain(reply) && !knownAddresses.has(replyAddr!) && !listReply(reply)) {
      if (isFreemail(reply) && !isFreemail(from))
        add("reply_to_freemail", `replies go to a free-mail address at ${reply.registrable}, not to ${from.registrable}`);
      else add("reply_to_elsewhere", `replies go to ${reply.registrable}, not to ${from.registrable}`);
    }
  }

  // A display name borrowed from the account or from someone it knows, on another domain. Replies
  // going back to that someone (an invoicing service writing for a known vendor) are no disguise.
  const replyToKnown = reply !== null && (isKnownDomain(reply) || knownAddresses.has(replyAddr!));
  if (display && !replyToKnown) {
    const person = context.people.find(
      (p) => p.email.toLowerCase() !== fromAddr && (nameIn(display, p.name) || nameIn(display, nameFromAddress(p.email))),
    );
    const mailbox = context.mailboxes.find((m) => m.address.toLowerCase() !== fromAddr && nameIn(display, m.displayName));
    const fromAccount = from !== null && accountDomainSet.has(from.registrable);
    if ((person || mailbox) && !fromAccount)
      add(
        "display_name_impersonation",
        `display name matches ${person ? person.email : mailbox!.address} of this account, sent from ${from?.registrable ?? fromAddr}`,
      );
    else {
      const correspondent = known.find((c) => {
        const d = domainOfAddress(c.address);
        return (
          c.address.toLowerCase() !== fromAddr &&
          (d === null || isFreemail(d) || d.registrable !== from?.registrable) &&
          (nameIn(display, c.name) ||
            nameIn(display, nameFromAddress(c.address)) ||
            (d && !isFreemail(d) && nameIn(display, d.label.replace(/[-_]/g, " "))))
        );
      });
      if (
        correspondent &&
        !(from && knownDomains.has(from.registrable) && domainOfAddress(correspondent.address)?.registrable === from.registrable)
      )
        add(
          "display_name_impersonation",
          `display name matches known correspondent ${correspondent.address}, sent from ${from?.registrable ?? fromAddr}`,
        );
      else if (!fromAccount) {
        // the account's own name (its domain's words) on an outside address: "Carlos García" at gmail for estudio-garcia.es
        const word = [...accountDomainSet]
          .flatMap((d) => d.split(".")[0]!.split("-"))
          .find((w) => w.length >= 5 && ` ${display} `.includes(` ${w} `));
        if (word && (isFreemail(from) || lookalikeOf(from)))
          add(
            "display_name_resembles_account",
            `display name carries "${word}", this account's name, from ${from?.registrable ?? fromAddr}`,
          );
      }
    }
  }

  // First contact.
  const seenAddress = knownAddresses.has(fromAddr) || context.correspondents.some((c) => c.address.toLowerCase() === fromAddr);
  if (!seenAddress && !(from && !isFreemail(from) && isKnownDomain(from)))
    add("first_contact", `no earlier mail with ${fromAddr} or its domain`);

  // What the text asks for.
  const wording = readWording(input.subject, input.body);
  if (wording.paymentChange) {
    if (wording.verificationOffered)
      add("payment_change_verified", `bank details change ("${wording.paymentChange}"), with verification through a known channel offered`);
    else add("payment_change", `bank or payment details change: "${wording.paymentChange}"`);
  }
  if (wording.paymentDetails) add("payment_details", `payment details in the text (${wording.paymentDetails})`);
  if (wording.moneyRequest) add("money_request", `money or gift cards requested: "${wording.moneyRequest}"`);
  // Secrecy about money is the fraud; secrecy alone is ordinary ("strictly confidential" drafts).
  const money = wording.paymentChange || wording.moneyRequest || wording.paymentDetails;
  if (wording.pressure && money) add("pressure", `secrecy or a check bypassed: "${wording.pressure}"`);

  // An address in the text, beside payment words, on another, unknown domain.
  if (money) {
    const text = input.body.slice(0, 20_000);
    for (const m of text.matchAll(/[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}/g)) {
      const near = text.slice(Math.max(0, m.index - 120), m.index + m[0].length + 60);
      if (!PAYMENT_NEAR.test(near)) continue;
      const d = domainOfAddress(m[0]);
      if (d && from && d.registrable !== from.registrable && !isKnownDomain(d)) {
        add("payment_address_elsewhere", `payment correspondence asked to go to ${d.registrable}`);
        break;
      }
    }
  }

  // Link text naming one site, target another; a target on the sender's own domain is the
  // sender's own tracking or shop ("walmart.com" linking to the retailer that wrote).
  const mismatch = linkMismatches(input.body).find((l) => l.target.registrable !== from?.registrable);
  if (mismatch) {
    const knownShown = isKnownDomain(mismatch.shown);
    add(
      knownShown ? "link_mismatch_known" : "link_mismatch",
      `a link reads ${mismatch.shown.registrable} but goes to ${mismatch.target.registrable}`,
    );
  }

  const score = Math.round(signals.reduce((sum, s) => sum + s.weight, 0) * 100) / 100;
  // A person's correction is not evidence to weigh: mail from an address the account reported as fraud is high.
  const level: SenderRiskLevel = score >= HIGH || input.reportedFraud ? "high" : score >= ELEVATED ? "elevated" : "low";
  return { level, score, signals: signals.map(({ name, detail }) => ({ name, detail })) };
}

/**
 * A header's first value read from the raw message's header block (unfolded). mailparser folds
 * List-Id into a structured `list` value that the stored header map does not keep as text.
 */
export function rawHeader(raw: Uint8Array, name: string): string | null {
  const head = new TextDecoder("utf-8", { fatal: false }).decode(raw.subarray(0, Math.min(raw.byteLength, 64 * 1024)));
  const end = head.search(/\r?\n\r?\n/);
  const block = (end < 0 ? head : head.slice(0, end)).replace(/\r?\n[ \t]+/g, " ");
  const m = new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(block);
  return m ? m[1]!.trim().slice(0, 500) : null;
}

/** List-Id, else List-Post or Mailing-List: the message came through a mailing list (as it says). */
export function listHeader(raw: Uint8Array): string | null {
  return rawHeader(raw, "list-id") ?? rawHeader(raw, "list-post") ?? rawHeader(raw, "mailing-list");
}
