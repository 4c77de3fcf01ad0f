// Scores sender risk on the hand-written corpus in test/fixtures/sender-risk/: each message is
// built as real MIME (nodemailer), parsed and sanitized as inbound mail is (parseInbound,
// sanitizeBody), and judged with the account context screening would read from the database:
// people as email addresses only (the dashboard keeps no names), mailboxes with display names,
// correspondents with the display names and counts seen.
//
//   npx bun scripts/eval-sender-risk.ts [--set tuning|blind|blind-v2|both] [--verbose]
//
// Prints, per set: fraud precision and recall (flagged = level elevated or high), the share of
// genuine mail flagged, and the same at `high` only. `bun run eval` calls evaluateSenderRisk.
// blind-v2.json is a second blind part by another author (its accounts in accounts-v2.json when
// that file exists, beside those of accounts.json); it is scored only when present, and of the
// blind parts only aggregates are printed, never which message was missed.
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import { assessSenderRisk, listHeader, type SenderContext, type SenderRisk } from "../src/comprehension/sender-risk/assess.ts";
import { parseInbound } from "../src/mail/parse.ts";
import { sanitizeBody } from "../src/mail/sanitize.ts";

const DIR = join(import.meta.dir, "..", "test", "fixtures", "sender-risk");

type Fixture = {
  id: string;
  label: "fraud" | "genuine";
  kind: string;
  lang: string;
  account: string;
  from: string;
  reply_to?: string;
  headers?: Record<string, string>;
  subject: string;
  body?: string;
  html?: string;
  auth: { spf: string; dkim: string; dmarc: string } | null;
};
type AccountFixture = {
  account_domains: string[];
  people: { name: string; email: string }[];
  mailboxes: { address: string; display_name: string }[];
  correspondents: { address: string; name: string; messages: number }[];
};

export type SenderRiskScores = {
  set: string;
  fraud: number;
  genuine: number;
  precision: number;
  recall: number;
  genuineFlagged: number;
  highRecall: number;
  highGenuineFlagged: number;
  rows: { id: string; label: string; kind: string; risk: SenderRisk }[];
};

/** The context screening builds: no people's names, as the database keeps none. */
function contextOf(account: AccountFixture): SenderContext {
  return {
    accountDomains: account.account_domains,
    people: account.people.map((p) => ({ name: null, email: p.email })),
    mailboxes: account.mailboxes.map((m) => ({ address: m.address, displayName: m.display_name })),
    correspondents: account.correspondents.map((c) => ({ address: c.address, name: c.name, messages: c.messages })),
  };
}

async function judge(fixture: Fixture, account: AccountFixture): Promise<SenderRisk> {
  const raw = await new MailComposer({
    from: fixture.from,
    to: account.mailboxes[0]!.address,
    ...(fixture.reply_to ? { replyTo: fixture.reply_to } : {}),
    subject: fixture.subject,
    ...(fixture.body ? { text: fixture.body } : {}),
    ...(fixture.html ? { html: fixture.html } : {}),
    headers: fixture.headers ?? {},
  })
    .compile()
    .build();
  return assessRaw(new Uint8Array(raw), fixture.auth, contextOf(account));
}

/** A raw message parsed and sanitized as inbound mail is, then judged with the given authentication results and context. */
async function assessRaw(raw: Uint8Array, auth: Fixture["auth"], context: SenderContext): Promise<SenderRisk> {
  const parsed = await parseInbound(raw);
  const clean = sanitizeBody({ text: parsed.text, html: parsed.html }, { maxChars: 100_000 });
  return assessSenderRisk({
    fromHeader: parsed.headerValues.from ?? "",
    fromAddr: parsed.fromAddr ?? "",
    replyTo: parsed.headerValues["reply-to"] ?? null,
    listId: listHeader(raw),
    subject: parsed.subject,
    body: clean.body_clean ?? "",
    auth,
    context,
  });
}

export type SenderRiskSet = "tuning" | "train-v3" | "blind" | "blind-v2";

/** The sets the shipped weights were fitted on, as their file records it (scripts/fit-sender-risk.ts). */
const FITTED_ON = new Set<string>(
  (JSON.parse(readFileSync(new URL("../src/comprehension/sender-risk/weights.json", import.meta.url), "utf8")) as { trained_on?: string[] })
    .trained_on ?? [],
);

/** Sets whose accounts are in a file of their own, merged over accounts.json. */
const ACCOUNTS_OF_SET: Partial<Record<SenderRiskSet, string>> = { "blind-v2": "accounts-v2.json", "train-v3": "accounts-train-v3.json" };

/** The sets whose file is there: later sets arrive after the first ones. */
export function senderRiskSets(): SenderRiskSet[] {
  return (["tuning", "train-v3", "blind", "blind-v2"] as const).filter((set) => existsSync(join(DIR, `${set}.json`)));
}

async function accountsFor(set: SenderRiskSet): Promise<Record<string, AccountFixture>> {
  const read = async (file: string) => JSON.parse(await readFile(join(DIR, file), "utf8")) as Record<string, AccountFixture>;
  const base = await read("accounts.json");
  const own = ACCOUNTS_OF_SET[set];
  return own && existsSync(join(DIR, own)) ? { ...base, ...(await read(own)) } : base;
}

export async function evaluateSenderRisk(set: SenderRiskSet): Promise<SenderRiskScores> {
  const accounts = await accountsFor(set);
  const fixtures = JSON.parse(await readFile(join(DIR, `${set}.json`), "utf8")) as Fixture[];
  const rows: SenderRiskScores["rows"] = [];
  for (const fixture of fixtures)
    rows.push({ id: fixture.id, label: fixture.label, kind: fixture.kind, risk: await judge(fixture, accounts[fixture.account]!) });
  const fraud = rows.filter((r) => r.label === "fraud");
  const genuine = rows.filter((r) => r.label === "genuine");
  const flagged = (r: (typeof rows)[number]) => r.risk.level !== "low";
  const high = (r: (typeof rows)[number]) => r.risk.level === "high";
  const tp = fraud.filter(flagged).length;
  const fp = genuine.filter(flagged).length;
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  return {
    set,
    fraud: fraud.length,
    genuine: genuine.length,
    precision: ratio(tp, tp + fp),
    recall: ratio(tp, fraud.length),
    genuineFlagged: ratio(fp, genuine.length),
    highRecall: ratio(fraud.filter(high).length, fraud.length),
    highGenuineFlagged: ratio(genuine.filter(high).length, genuine.length),
    rows,
  };
}

export function formatSenderRisk(s: SenderRiskScores): string {
  const p = (x: number) => x.toFixed(3);
  return (
    `sender risk (${s.set}${FITTED_ON.has(s.set) ? ", fitted on" : ""}: ${s.fraud} fraud, ${s.genuine} genuine): precision ${p(s.precision)} recall ${p(s.recall)} ` +
    `genuine flagged ${p(s.genuineFlagged)}; at high only: recall ${p(s.highRecall)} genuine flagged ${p(s.highGenuineFlagged)}`
  );
}

/** Real ham of the SpamAssassin corpus (the given groups), each judged with an empty account context. */
export async function corpusHamRisks(groups: readonly string[]): Promise<SenderRisk[]> {
  const { loadCorpus } = await import("./train-spam.ts");
  const ham = (await loadCorpus(groups)).filter((m) => !m.spam);
  const context: SenderContext = { accountDomains: [], people: [], mailboxes: [], correspondents: [] };
  const out: SenderRisk[] = [];
  for (const message of ham) out.push(await assessRaw(message.raw, null, context));
  return out;
}

/** The SpamAssassin held-out ham (never in the sender-risk fit): how much of it is flagged, and by what. */
export async function senderRiskOnCorpusHam(): Promise<{ total: number; elevated: number; high: number; signals: Record<string, number> }> {
  const risks = await corpusHamRisks(["easy-ham-2", "hard-ham-1"]);
  const out = { total: risks.length, elevated: 0, high: 0, signals: {} as Record<string, number> };
  for (const risk of risks) {
    if (risk.level === "elevated") out.elevated++;
    if (risk.level === "high") out.high++;
    if (risk.level !== "low") for (const s of risk.signals) out.signals[s.name] = (out.signals[s.name] ?? 0) + 1;
  }
  return out;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      set: { type: "string", default: "both" },
      verbose: { type: "boolean", default: false },
      ham: { type: "boolean", default: false },
    },
  });
  const sets = values.set === "both" ? senderRiskSets() : [values.set as SenderRiskSet];
  for (const set of sets) {
    const scores = await evaluateSenderRisk(set);
    console.log(formatSenderRisk(scores));
    if (set.startsWith("blind")) continue; // aggregates only: a blind part is not read
    for (const row of scores.rows) {
      const wrong = (row.label === "fraud") === (row.risk.level === "low");
      if (values.verbose || wrong)
        console.log(
          `  ${wrong ? "MISS" : "ok  "} ${row.id} ${row.label} ${row.kind}: ${row.risk.level} ${row.risk.score} [${row.risk.signals.map((s) => s.name).join(", ")}]`,
        );
    }
  }
}

if (import.meta.main && process.argv.includes("--ham")) {
  const ham = await senderRiskOnCorpusHam();
  console.log(
    `SpamAssassin held-out ham (${ham.total}): ${((100 * (ham.elevated + ham.high)) / ham.total).toFixed(2)}% flagged ` +
      `(${ham.elevated} elevated, ${ham.high} high); signals on the flagged: ${JSON.stringify(ham.signals)}`,
  );
}
