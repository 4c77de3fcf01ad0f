// The page frame every dashboard page shares: head, navigation, the sign-out form, a notice.
import { type Html, html } from "./html.ts";
import type { Session } from "./session.ts";

export type Notice = { kind: "ok" | "error"; text: string | Html };

const sections: [string, string][] = [
  ["/dashboard", "Overview"],
  ["/dashboard/mail", "Mail"],
  ["/dashboard/activity", "Activity"],
  ["/dashboard/corrections", "Corrections"],
  ["/dashboard/domains", "Domains"],
  ["/dashboard/keys", "API keys"],
  ["/dashboard/sendlists", "Send lists"],
  ["/dashboard/approvals", "Approvals"],
  ["/dashboard/mailboxes", "Mailboxes"],
  ["/dashboard/webhook", "Webhook"],
  ["/dashboard/schemas", "Schemas"],
  ["/dashboard/people", "People"],
];

// Drafts waiting for a human: one click to the queue from the top of every page.
function pendingBanner(session: Session): Html {
  const n = session.pendingDrafts;
  if (!n) return html``;
  return html`<a class="pending" href="/dashboard/approvals">${n} draft${n === 1 ? "" : "s"} waiting for approval →</a>`;
}

export function csrfField(session: Session): Html {
  return html`<input type="hidden" name="csrf" value="${session.csrf}">`;
}

function noticeBox(notice: Notice | null | undefined): Html {
  if (!notice) return html``;
  return html`<p class="notice ${notice.kind}" role="${notice.kind === "error" ? "alert" : "status"}">${notice.text}</p>`;
}

export function layout(title: string, body: Html, session: Session | null, notice?: Notice | null): Html {
  const nav = session
    ? html`<nav>${sections.map(([href, label]) => html`<a href="${href}">${label}</a>`)}</nav>
<form method="post" action="/dashboard/logout" class="signout">${csrfField(session)}<span>${session.email}</span> <button type="submit">Sign out</button></form>`
    : html``;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Agent Mailbox</title>
<link rel="stylesheet" href="/dashboard/assets/style.css">
<link rel="icon" href="/dashboard/assets/icon.svg" type="image/svg+xml">
</head>
<body>
<header><strong>Agent Mailbox</strong>${nav}</header>
${session ? pendingBanner(session) : html``}
<main>
<h1>${title}</h1>
${noticeBox(notice)}
${body}
</main>
</body>
</html>
`;
}
