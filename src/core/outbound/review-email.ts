// The email a reviewer gets when a draft waits for approval: warnings first, then the whole message
// as it would go out, who wrote it, why it is held and what the message it answers was judged to
// be, then the links. Text and HTML say the same; every value from an agent or a sender is escaped,
// with invisible characters made visible. It offers no editing: a reviewer approves what they saw.
import { escapeHtml, revealHidden } from "../../html-escape.ts";
import type { ReviewSubject } from "./reviews.ts";

export type ReviewEmailInput = { baseUrl: string; token: string };
export type ReviewEmail = { subject: string; text: string; html: string };

const REASONS: Record<string, string> = {
  require_approval: "the mailbox requires a human's approval for every email it sends",
  mailbox_paused: "the mailbox is paused: nothing it sends goes out until a human approves it or unpauses the mailbox",
  loop_guard: "the loop guard stopped it: the agent was answering the same conversation too often",
  risky_forward: "it forwards a message screening flagged as risky (prompt injection, spam or malware)",
};

/** A known reason in words; the loop guard writes its own (drafts.held_reason), shown as it is. */
export const reasonText = (reason: string): string => REASONS[reason] ?? reason;

export function reviewLink(baseUrl: string, token: string, intent?: "approve" | "reject"): string {
  return `${baseUrl}/dashboard/review/${token}${intent ? `?intent=${intent}` : ""}`;
}

const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;

export function utc(value: string | Date): string {
  return new Date(value)
    .toISOString()
    .replace("T", " ")
    .replace(/:\d\d\.\d+Z$/, " UTC");
}

/** The facts of a review as label/value lines, shared by the email and the confirmation page. */
export function reviewFacts(s: ReviewSubject): [string, string][] {
  const { draft } = s;
  const facts: [string, string][] = [
    ["From", draft.fromName ? `${draft.fromName} <${draft.from}>` : draft.from],
    ["To", draft.to ?? "(no recipient)"],
    ["Subject", draft.subject || "(no subject)"],
    ["Draft", draft.id],
    ["Attachments", s.attachments.length ? s.attachments.map((a) => `${a.filename} (${size(a.size)})`).join(", ") : "none"],
    ["Held because", reasonText(s.review.reason)],
    ["Written by key", s.key ? `${s.key.name ?? "unnamed"} (${s.key.hint}…, ${s.key.id})` : "unknown"],
    ["Review open until", `${utc(s.review.expires_at)}; then it is rejected as expired`],
  ];
  const r = s.repliesTo;
  if (r) {
    facts.push(["Answers", `${r.from}: ${r.subject || "(no subject)"} (${r.id})`]);
    facts.push([
      "Its screening",
      [
        `injection risk ${r.injectionRisky ? "HIGH" : "low"}${r.injectionScore === null ? "" : ` (score ${r.injectionScore})`}`,
        `spam risk ${r.spamRisk ?? "not scored"}`,
        `virus risk ${r.virusRisk ?? "no verdict"}`,
        `DMARC ${r.dmarc ?? "not checked"}`,
        `comprehension ${r.comprehensionStatus ?? "not screened"}`,
      ].join("; "),
    ]);
  } else {
    facts.push(["Answers", "nothing: a new conversation"]);
  }
  return facts;
}

export function composeReviewEmail(s: ReviewSubject, input: ReviewEmailInput): ReviewEmail {
  const approve = reviewLink(input.baseUrl, input.token, "approve");
  const reject = reviewLink(input.baseUrl, input.token, "reject");
  const queue = `${input.baseUrl}/dashboard/approvals`;
  const facts = reviewFacts(s);
  // The subject line carries no agent-written text: a mail client shows it before anything is escaped.
  const subject = `${s.warnings.length ? "[Risk] " : ""}Approval needed: an email from ${s.draft.from}`;

  const text = [
    ...s.warnings.map((w) => `WARNING: ${w}`),
    ...(s.warnings.length ? [""] : []),
    "An agent's email is waiting for your approval. Nothing is sent until someone approves it.",
    "",
    ...facts.map(([label, value]) => `${label}: ${revealHidden(value, "text")}`),
    "",
    "----- the whole text, as it would be sent -----",
    revealHidden(s.draft.text, "text"),
    "----- end of the text -----",
    "",
    "Approve (opens a page showing this email with two buttons; nothing happens until you press one):",
    approve,
    "Reject:",
    reject,
    "",
    "This link is yours alone. It works once, and stops working when the draft is decided, changes or expires.",
    "The email cannot be edited here: reject it and ask the agent for a corrected one.",
    `The approval queue: ${queue}`,
    "",
  ].join("\n");

  const row = ([label, value]: [string, string]) =>
    `<tr><th style="text-align:left;vertical-align:top;padding:4px 12px 4px 0;white-space:nowrap">${escapeHtml(label)}</th><td style="padding:4px 0;overflow-wrap:anywhere">${revealHidden(value)}</td></tr>`;
  const button = (href: string, label: string, color: string) =>
    `<a href="${escapeHtml(href)}" style="display:inline-block;margin:4px 8px 4px 0;padding:10px 18px;border-radius:6px;background:${color};color:#fff;text-decoration:none;font-weight:600">${label}</a>`;
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Approval needed</title></head>
<body style="margin:0;padding:16px;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1b1f24;background:#f6f7f9">
<div style="max-width:680px;margin:0 auto;background:#fff;border:1px solid #d8dde3;border-radius:8px;padding:16px">
${s.warnings.map((w) => `<p role="alert" style="margin:0 0 12px;padding:10px 12px;border-radius:6px;background:#fdecea;color:#8a1c12;font-weight:600">⚠ ${escapeHtml(w)}</p>`).join("\n")}
<h1 style="font-size:20px;margin:0 0 8px">An email is waiting for your approval</h1>
<p style="margin:0 0 12px">Nothing is sent until someone approves it.</p>
<table style="border-collapse:collapse;font-size:14px;width:100%">${facts.map(row).join("")}</table>
<h2 style="font-size:16px;margin:16px 0 8px">The whole text, as it would be sent</h2>
<pre style="white-space:pre-wrap;overflow-wrap:anywhere;font-size:14px;background:#f6f7f9;border:1px solid #d8dde3;border-radius:6px;padding:12px;margin:0">${revealHidden(s.draft.text)}</pre>
<p style="margin:16px 0 4px">${button(approve, "Review and approve…", "#1a7f37")}${button(reject, "Review and reject…", "#b42318")}</p>
<p style="font-size:13px;color:#57606a;margin:8px 0 0">Each button opens a page showing this email with two buttons; nothing happens until you press one there.
This link is yours alone: it works once, and stops working when the draft is decided, changes or expires.
The email cannot be edited here: reject it and ask the agent for a corrected one.
<a href="${escapeHtml(queue)}">Open the approval queue</a>.</p>
</div></body></html>`;
  return { subject, text, html };
}
