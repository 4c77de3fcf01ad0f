// One message, everything the service decided about it and why: headers, the clean body the
// agent read, what sanitization hid and removed, authentication results, the spam, virus and
// injection verdicts with their signals, classification and extraction, attachments, the thread,
// and the original HTML, which is shown only inside a sandboxed frame (see message-original.ts).
import { CoreError } from "../../core/errors.ts";
import { changeMessageLabels, getMessageLabels } from "../../core/labels.ts";
import { getMessage, type MessageDetail } from "../../core/messages.ts";
import { errorText, statusOf } from "../../request/error-answers.ts";
import { doneUrl, flash } from "../flash.ts";
import type { ActionContext, PageContext } from "../guard.ts";
import { type Html, html, path, reveal, when } from "../html.ts";
import { csrfField, layout, type Notice } from "../layout.ts";
import { type MessageExtras, messageExtras, threadOf } from "../mail-queries.ts";
import { dashboardPrincipal } from "../principal.ts";
import { htmlResponse, redirect } from "../respond.ts";
import { correctionsSection } from "./feedback.ts";

type Json = Record<string, unknown>;
const obj = (value: unknown): Json | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : null;
const num = (value: unknown): string => (typeof value === "number" ? (Math.round(value * 1000) / 1000).toString() : "—");

function definitions(rows: [string, Html | string | null | undefined][]): Html {
  return html`<dl class="card wide">${rows.map(([term, value]) => html`<dt>${term}</dt><dd>${value ?? "—"}</dd>`)}</dl>`;
}

function verdict(level: string | null | undefined): Html {
  const kind = level === "high" ? "bad" : level === "low" ? "ok" : level === "error" ? "warn" : "";
  return html`<span class="badge ${kind}">${level ?? "not screened"}</span>`;
}

function authSection(m: MessageDetail): Html {
  if (!m.auth_results) return html`<p class="hint">No authentication results (outbound, local delivery, or checks turned off).</p>`;
  const cell = (v: string) => html`<span class="badge ${v === "pass" ? "ok" : v === "fail" ? "bad" : ""}">${v}</span>`;
  return html`<table class="compact"><thead><tr><th>SPF</th><th>DKIM</th><th>DMARC</th></tr></thead>
<tbody><tr><td>${cell(m.auth_results.spf)}</td><td>${cell(m.auth_results.dkim)}</td><td>${cell(m.auth_results.dmarc)}</td></tr></tbody></table>`;
}

// The content classifier's reasons (what pushed its score up), shown when it flagged the message.
function classifierReasons(classifier: Json): Html {
  const reasons = Array.isArray(classifier.reasons) ? classifier.reasons.slice(0, 5).map(String) : [];
  if (!classifier.spam || reasons.length === 0) return html``;
  return html`: ${reasons.join("; ")}`;
}

function riskBadge(level: string): Html {
  const kind = level === "high" ? "bad" : level === "elevated" ? "warn" : level === "low" ? "ok" : "";
  return html`<span class="badge ${kind}">${level || "—"}</span>`;
}

/** How far the account's own corrections moved the global classifier score, when they did. */
function accountEffect(classifier: Json): Html {
  const account = obj(classifier.account);
  if (!account) return html``;
  const corrections = obj(account.corrections) ?? {};
  return html`<br><small>global model ${num(classifier.global_score)}; this account's corrections (${num(corrections.spam)} spam, ${num(corrections.ham)} not spam)
${account.score === null ? html`share nothing with this message` : html`score it ${num(account.score)} over ${num(account.tokens)} tokens (${num(Number(account.coverage) * 100)}% of its words)`}</small>`;
}

function screeningSection(m: MessageDetail): Html {
  const comprehension = obj(m.comprehension) ?? {};
  const spam = obj(comprehension.spam) ?? {};
  const edge = obj(spam.edge);
  const classifier = obj(spam.classifier);
  const injection = obj(comprehension.injection);
  const signals = Array.isArray(injection?.signals) ? (injection!.signals as Json[]) : [];
  const spamDetail = html`${edge ? html`edge: ${edge.flagged ? "flagged" : "not flagged"} (${String(edge.source ?? "none")}${edge.score !== undefined ? html`, score ${num(edge.score)} / ${num(edge.threshold)}${edge.action !== undefined ? html`, action ${String(edge.action)}` : html``}` : html``}); ` : html``}
${classifier ? (classifier.error ? html`classifier failed` : html`classifier ${num(classifier.score)} (threshold ${num(classifier.threshold)})${classifierReasons(classifier)}${accountEffect(classifier)}`) : html``}`;
  const sender = obj(comprehension.sender_risk);
  const senderSignals = Array.isArray(sender?.signals) ? (sender!.signals as Json[]) : [];
  const senderDetail = sender
    ? html`${riskBadge(String(sender.level ?? ""))} ${sender.score !== undefined ? html`score ${num(sender.score)}` : html``}${senderSignals.length ? html`<ul class="signals">${senderSignals.slice(0, 20).map((s) => html`<li><code>${String(s.name ?? "")}</code> ${reveal(String(s.detail ?? ""))}</li>`)}</ul>` : html``}`
    : html`not assessed`;
  const injectionDetail = injection
    ? html`score ${num(injection.score)} (threshold ${num(injection.threshold)}) ${injection.risky ? html`<span class="badge warn">risky</span>` : html`<span class="badge ok">not risky</span>`}`
    : html`not scored`;
  const signalRows = signals
    .slice(0, 50)
    .map(
      (s) =>
        html`<tr><td><code>${String(s.name ?? "")}</code></td><td>${num(s.weight)}</td><td>${reveal(String(s.evidence ?? ""))}</td></tr>`,
    );
  return html`${definitions([
    ["Spam", html`${verdict(m.spam_risk)} ${spamDetail}`],
    ["Virus", verdict(m.virus_risk)],
    ["Injection", injectionDetail],
    ["Sender risk", senderDetail],
    ["Decided by", comprehension.decided_by ? String(comprehension.decided_by) : null],
  ])}
${signalRows.length ? html`<h3>Injection signals</h3><div class="scroll"><table class="compact signals"><thead><tr><th>Signal</th><th>Weight</th><th>Evidence</th></tr></thead><tbody>${signalRows}</tbody></table></div>` : html``}`;
}

function comprehensionSection(m: MessageDetail): Html {
  const comprehension = obj(m.comprehension);
  if (!comprehension)
    return html`<p class="hint">${m.direction === "out" ? "Outbound mail is not comprehended." : "Not processed yet."}</p>`;
  const classification = obj(comprehension.classification);
  const extraction = obj(comprehension.extraction);
  const error = obj(comprehension.extraction_error);
  const classSignals = Array.isArray(classification?.signals) ? (classification!.signals as unknown[]).map(String).join(", ") : "";
  return html`${definitions([
    ["Status", html`<code>${String(comprehension.status ?? "")}</code>`],
    [
      "Classification",
      classification
        ? html`<strong>${String(classification.label ?? "")}</strong> (confidence ${num(classification.confidence)})${classSignals ? html`<br><small>${classSignals}</small>` : html``}`
        : null,
    ],
    ["Engine", comprehension.engine ? String(comprehension.engine) : null],
    ["Extraction error", error ? String(error.message ?? "") : null],
  ])}
${extraction ? html`<h3>Extraction</h3><pre class="json">${JSON.stringify(extraction, null, 2)}</pre>` : html``}`;
}

const REPORT_LABELS: [string, string][] = [
  ["hidden_elements", "Hidden elements removed"],
  ["html_comments", "HTML comments removed"],
  ["scripts_styles", "Scripts, styles and embeds removed"],
  ["zero_width_chars", "Zero-width characters"],
  ["bidi_controls", "Direction controls"],
  ["unicode_tags", "Unicode tag characters"],
  ["other_invisible", "Other invisible characters"],
  ["truncated_chars", "Characters cut by the length limit"],
];

function sanitizationSection(extras: MessageExtras, hiddenText: string | null): Html {
  const report = extras.sanitization;
  if (!report) return html`<p class="hint">No sanitization report (outbound mail is ours).</p>`;
  const rows = REPORT_LABELS.map(([key, label]) => {
    const count = Number(report[key] ?? 0);
    return html`<tr class="${count > 0 ? "nonzero" : ""}"><td>${label}</td><td>${count}</td></tr>`;
  });
  return html`<table class="compact report"><tbody>${rows}</tbody></table>
${hiddenText ? html`<details><summary>Text that was hidden from a human reader (${hiddenText.length} characters)</summary><pre class="body">${reveal(hiddenText)}</pre></details>` : html``}`;
}

function headersSection(m: MessageDetail, extras: MessageExtras): Html {
  const rows = Object.entries(extras.headers ?? {})
    .slice(0, 200)
    .map(([name, value]) => html`<tr><th>${name}</th><td>${reveal(String(value))}</td></tr>`);
  return html`${definitions([
    ["From", reveal(m.from_addr)],
    ["To", reveal(m.to_addr)],
    ["Subject", m.subject ? reveal(m.subject) : "(no subject)"],
    ["Date", when(m.created_at)],
    ["Direction", m.direction === "in" ? "inbound" : "outbound"],
    ["Message-ID", m.rfc_message_id],
    ["In-Reply-To", m.in_reply_to],
    ...(m.direction === "in"
      ? ([
          [
            "Connection",
            extras.remote_ip ? `${extras.remote_ip} (HELO ${extras.helo ?? "—"}, MAIL FROM ${extras.mail_from ?? "—"})` : "local delivery",
          ],
        ] as [string, string][])
      : ([
          ["Delivery", `${extras.delivery_status ?? "—"}${extras.outcome_assumed ? " (assumed)" : ""}`],
          ["Provider id", m.provider_message_id],
        ] as [string, string | null][])),
    ["Parse warnings", extras.parse_warnings.length ? extras.parse_warnings.join("; ") : null],
  ])}
${rows.length ? html`<details><summary>All headers (${rows.length})</summary><div class="scroll"><table class="compact headers"><tbody>${rows}</tbody></table></div></details>` : html``}`;
}

function attachmentsSection(m: MessageDetail): Html {
  if (!m.attachments.length) return html`<p class="hint">No attachments.</p>`;
  return html`<div class="scroll"><table class="compact"><thead><tr><th>File</th><th>Type</th><th>Size</th><th>SHA-256</th></tr></thead><tbody>${m.attachments.map(
    (a) =>
      html`<tr><td><a href="${path("mail", m.id, "attachments", a.id)}" download>${a.filename ? reveal(a.filename) : "attachment"}</a></td><td>${a.content_type}</td><td>${a.size} bytes</td><td><code class="hash">${a.sha256.slice(0, 16)}…</code></td></tr>`,
  )}</tbody></table></div><p class="hint">Attachments download as files; the browser is told not to open or sniff them.</p>`;
}

async function threadSection(c: PageContext, m: MessageDetail): Promise<Html> {
  const thread = await threadOf(c.svc.sql, c.session.accountId, m.mailbox_id, m.thread_id);
  if (thread.length <= 1) return html`<p class="hint">This message is the whole thread.</p>`;
  return html`<ol class="thread">${thread.map(
    (t) =>
      html`<li${t.id === m.id ? html` class="current"` : html``}>${when(t.created_at)} · ${t.direction === "in" ? "from" : "sent as"} ${reveal(t.from_addr)} · ${t.id === m.id ? html`<strong>${t.subject || "(no subject)"}</strong>` : html`<a href="${path("mail", t.id)}">${t.subject || "(no subject)"}</a>`}</li>`,
  )}</ol>`;
}

function originalSection(m: MessageDetail, size: number | null): Html {
  // The service keeps an outbound message's raw form only until it has left.
  if (size === null)
    return html`<p class="hint">The raw form of this message is no longer kept (outbound mail keeps it only until delivery). The text above is what was sent.</p>`;
  const frame = path("mail", m.id, "original");
  return html`<p class="hint">The message as its sender wrote it, inside a sandboxed frame: no script runs, nothing loads from the network,
and links do not open. <a href="${frame}?images=1" target="original-${m.id}">Load remote images</a> (tells the sender the message was opened) ·
<a href="${path("mail", m.id, "raw")}" download>Download the raw message</a> (${size} bytes)</p>
<iframe class="original" name="original-${m.id}" title="Original message" src="${frame}" sandbox referrerpolicy="no-referrer"></iframe>`;
}

/** The decisions in one line at the top, each linking to its section. */
function summary(m: MessageDetail): Html {
  const comprehension = obj(m.comprehension);
  const injection = obj(comprehension?.injection);
  const classification = obj(comprehension?.classification);
  const auth = m.auth_results;
  return html`<p class="summary">${m.direction === "out" ? html`<span class="badge sent">outbound</span>` : html`<span class="badge">inbound</span>`}
<a href="#screening">spam ${verdict(m.spam_risk)}</a> <a href="#screening">virus ${verdict(m.virus_risk)}</a>
${injection ? html`<a href="#screening">injection ${injection.risky ? html`<span class="badge warn">risky</span>` : html`<span class="badge ok">low</span>`}</a>` : html``}
${obj(comprehension?.sender_risk) ? html`<a href="#screening">sender ${riskBadge(String(obj(comprehension?.sender_risk)!.level ?? ""))}</a>` : html``}
${classification ? html`<a href="#comprehension"><span class="badge ok">${String(classification.label ?? "")}</span></a>` : html``}
${auth ? html`<a href="#screening">SPF ${auth.spf} · DKIM ${auth.dkim} · DMARC ${auth.dmarc}</a>` : html``}
${m.attachments.length ? html`<a href="#attachments">${m.attachments.length} attachment${m.attachments.length === 1 ? "" : "s"}</a>` : html``}
<a href="#original">original</a></p>`;
}

/** The message's labels, each removable, and the common changes one click away. */
function labelsSection(c: PageContext, m: MessageDetail, labels: string[]): Html {
  const action = path("mail", m.id, "labels");
  const button = (name: "add" | "remove", value: string, text: string) =>
    html`<form method="post" action="${action}" class="inline">${csrfField(c.session)}<input type="hidden" name="${name}" value="${value}"><button type="submit" class="link">${text}</button></form>`;
  const unread = labels.includes("unread");
  const archived = labels.includes("archived");
  // Divs, not paragraphs: a <form> inside a <p> closes the paragraph in every HTML parser.
  return html`<div class="labels">${labels.length ? labels.map((label) => html`<div class="label-item"><span class="badge label">${label}</span>${button("remove", label, "×")}</div>`) : html`<span class="hint">No labels.</span>`}</div>
<div class="labels">${unread ? button("add", "read", "Mark read") : m.direction === "in" ? button("add", "unread", "Mark unread") : html``}${archived ? button("remove", "archived", "Unarchive") : button("add", "archived", "Archive")}</div>
<form method="post" action="${action}">${csrfField(c.session)}<label>Add labels <input name="add" maxlength="400" placeholder="e.g. invoices, todo"></label> <button type="submit">Add</button></form>
<p class="hint">Agents see and change the same labels through the API (<code>/api/v1/messages/{id}/labels</code>). Separate several with commas or spaces.</p>`;
}

export async function messagePage(c: PageContext, notice: Notice | null = null, status = 200): Promise<Response> {
  const id = c.params.id ?? "";
  const principal = await dashboardPrincipal(c.svc.sql, c.session);
  // getMessage's 404 and messageExtras' 404 both become the one not-found page.
  const m = await getMessage(c.svc, principal, id);
  const extras = await messageExtras(c.svc.sql, c.session.accountId, id);
  const labels = await getMessageLabels(c.svc.sql, principal, id);
  const body = html`<p><a href="/dashboard/mail?mailbox_id=${encodeURIComponent(m.mailbox_id)}">← ${m.direction === "in" ? "Inbox" : "Mailbox"}</a></p>
${summary(m)}
<section id="labels"><h2>Labels</h2>${labelsSection(c, m, labels)}</section>
<section id="headers"><h2>Headers</h2>${headersSection(m, extras)}</section>
<section id="screening"><h2>Screening</h2>${screeningSection(m)}<h3>Authentication</h3>${authSection(m)}</section>
<section id="corrections"><h2>Corrections</h2>${await correctionsSection(c, m)}</section>
<section id="comprehension"><h2>Classification and extraction</h2>${comprehensionSection(m)}</section>
<section id="body"><h2>Clean body</h2><p class="hint">What the agent reads${m.truncated ? " (cut at the length limit)" : ""}. Invisible characters show as <mark class="hidden-char">U+…</mark>.</p>
<pre class="body">${m.body_clean === null ? "(no body)" : reveal(m.body_clean)}</pre></section>
<section id="sanitization"><h2>Sanitization report</h2>${sanitizationSection(extras, extras.hidden_text)}</section>
<section id="attachments"><h2>Attachments</h2>${attachmentsSection(m)}</section>
<section id="thread"><h2>Thread</h2>${await threadSection(c, m)}</section>
<section id="original"><h2>Original</h2>${originalSection(m, extras.raw_size)}</section>`;
  // The page title cannot show markers, so invisible and direction-changing characters become
  // U+FFFD there (the Headers section shows them as markers).
  const title = m.subject.replace(/[\p{Cf}\p{Cc}]/gu, "\uFFFD");
  return htmlResponse(layout(title ? `Message: ${title}` : "Message", body, c.session, notice ?? flash(c.url)), status);
}

/** POST /dashboard/mail/{id}/labels: `add` and `remove`, each one or more names separated by commas or spaces. */
export async function changeLabelsAction(c: ActionContext): Promise<Response> {
  const id = c.params.id ?? "";
  const names = (field: string) =>
    (c.form.text(field, 400) ?? "")
      .split(/[\s,]+/)
      .filter(Boolean)
      .slice(0, 20);
  const principal = await dashboardPrincipal(c.svc.sql, c.session);
  try {
    const labels = await changeMessageLabels(c.svc.sql, principal, id, { add: names("add"), remove: names("remove") });
    c.audit.labels = labels.join(",");
  } catch (error) {
    if (error instanceof CoreError && statusOf(error) === 400) return messagePage(c, { kind: "error", text: errorText(error) }, 400);
    throw error;
  }
  return redirect(`${doneUrl(path("mail", id), "labels_saved")}#labels`);
}
