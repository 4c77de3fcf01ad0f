// Sender risk of an inbound message (src/comprehension/sender-risk/assess.ts) with the context
// this mailbox and account give it: the account's people and mailboxes, its custom domains, and
// the addresses the mailbox has exchanged mail with (recent 5,000 messages: mail it sent, and
// screened inbound mail not flagged as spam or a virus), with display names from its latest 300
// inbound messages. Corrections count too: an address the
// account corrected as `genuine` is a known correspondent, and mail from an address corrected as
// `fraud` carries the reported_fraud_sender signal (src/core/screening/feedback.ts).
import { assessSenderRisk, displayNameOf, listHeader, type SenderRisk } from "../../comprehension/sender-risk/assess.ts";
import type { AuthOutcome } from "../../mail/authenticate.ts";
import type { Services } from "../services.ts";
import type { ScreeningRow } from "./types.ts";

const RECENT_MESSAGES = 5000;
const RECENT_NAMES = 300;

export async function screenSenderRisk(
  svc: Services,
  message: Pick<ScreeningRow, "id" | "account_id" | "mailbox_id" | "from_addr" | "subject" | "body_clean" | "headers">,
  raw: Uint8Array,
  auth: AuthOutcome,
): Promise<SenderRisk> {
  const { sql } = svc;
  const [people, mailboxes, domains, correspondents, names, reported] = await Promise.all([
    sql<{ email: string }[]>`select email from dashboard_users where account_id = ${message.account_id} limit 500`,
    sql<{ address: string; display_name: string | null }[]>`
      select address, display_name from mailboxes where account_id = ${message.account_id} limit 1000`,
    sql<{ name: string }[]>`select name from domains where account_id = ${message.account_id} and status = 'verified' limit 100`,
    // Addresses and counts over the recent messages (no header reads: they are the heavy column).
    sql<{ address: string; messages: number; sent_to: boolean }[]>`
      select lower(addr) as address, count(*)::int as messages, bool_or(sent) as sent_to
      from (
        select case when direction = 'out' then to_addr else from_addr end as addr, direction = 'out' as sent
        from messages
        where mailbox_id = ${message.mailbox_id} and id <> ${message.id}
          and (direction = 'out' or (processed_at is not null and spam_risk is distinct from 'high' and virus_risk is distinct from 'high'))
        order by created_at desc
        limit ${RECENT_MESSAGES}
      ) recent
      group by lower(addr)
      union all
      select lower(m.from_addr), 2, true from message_feedback f join messages m on m.id = f.message_id
      where f.account_id = ${message.account_id} and f.verdict = 'genuine' and f.undone_at is null
      limit 2000`,
    // Display names as correspondents wrote them, from the latest inbound mail only.
    sql<{ address: string; name: string | null }[]>`
      select distinct on (lower(from_addr)) lower(from_addr) as address, headers->>'from' as name
      from (
        select from_addr, headers, created_at from messages
        where mailbox_id = ${message.mailbox_id} and direction = 'in' and id <> ${message.id} and processed_at is not null
          and spam_risk is distinct from 'high'
        order by created_at desc
        limit ${RECENT_NAMES}
      ) recent
      order by lower(from_addr), created_at desc`,
    sql<{ found: boolean }[]>`
      select exists (
        select 1 from message_feedback f join messages m on m.id = f.message_id
        where f.account_id = ${message.account_id} and f.verdict = 'fraud' and f.undone_at is null
          and lower(m.from_addr) = lower(${message.from_addr}) and m.id <> ${message.id}
      ) as found`,
  ]);
  const headers = message.headers ?? {};
  const nameOf = new Map(names.filter((n) => n.name).map((n) => [n.address, n.name!]));
  const risk = assessSenderRisk({
    fromHeader: headers.from ?? message.from_addr,
    fromAddr: message.from_addr,
    replyTo: headers["reply-to"] ?? null,
    listId: listHeader(raw),
    subject: message.subject,
    body: message.body_clean ?? "",
    auth: auth.results,
    context: {
      accountDomains: domains.map((d) => d.name),
      people: people.map((p) => ({ name: null, email: p.email })),
      mailboxes: mailboxes.map((m) => ({ address: m.address, displayName: m.display_name })),
      correspondents: correspondents.map((c) => {
        const written = nameOf.get(c.address);
        return { address: c.address, name: written ? displayNameOf(written) || null : null, messages: c.messages, sentTo: c.sent_to };
      }),
    },
    reportedFraud: reported[0]?.found === true,
  });
  return risk;
}
