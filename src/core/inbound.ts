// Accepting inbound mail: the one path for the SMTP listener and for local delivery. The raw
// message, one row per recipient mailbox and the processing job commit in one transaction;
// a caller answers success only after this returns.
import { parseInbound } from "../mail/parse.ts";
import { sanitizeBody } from "../mail/sanitize.ts";
import { newId } from "./ids.ts";
import { claimFirstCopy } from "./inbound-dedupe.ts";
import { enqueueJob } from "./jobs.ts";
import type { Mailbox } from "./mailboxes.ts";
import { sha256Hex } from "../secrets.ts";
import type { Services } from "./services.ts";
import { stopwatch } from "./stage-times.ts";
import { threadFor } from "./threading.ts";
import { MAILTO_LOCAL_PREFIX } from "./unsubscribe.ts";

export type InboundEnvelope = {
  remoteIp: string | null;
  helo: string | null;
  mailFrom: string | null;
};

export type RecipientLookup =
  | { kind: "mailbox"; mailbox: Mailbox }
  | { kind: "unsubscribe"; token: string }
  | { kind: "unknown_mailbox" }
  | { kind: "not_our_domain" };

/** Whether an address is one of our mailboxes. Sub-addresses (`local+tag@`) reach `local@`. */
export async function lookupRecipient(svc: Services, address: string): Promise<RecipientLookup> {
  const at = address.lastIndexOf("@");
  if (at < 1) return { kind: "not_our_domain" };
  const domain = address
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, "");
  const localPart = address.slice(0, at).toLowerCase().replace(/\+.*$/, "");
  if (domain === svc.config.sharedDomain && localPart.startsWith(MAILTO_LOCAL_PREFIX)) {
    return { kind: "unsubscribe", token: localPart.slice(MAILTO_LOCAL_PREFIX.length) };
  }
  // One row whatever matches: whether the domain is a verified custom one, and the mailbox's
  // columns (all null when there is no such mailbox).
  const [row] = await svc.sql`
    select exists (select 1 from domains where name = ${domain} and status = 'verified') as verified_domain, m.*
    from (values (1)) as lookup left join mailboxes m on m.address = ${`${localPart}@${domain}`}`;
  const { verified_domain: verifiedDomain, ...mailbox } = row!;
  if (domain !== svc.config.sharedDomain && !verifiedDomain) return { kind: "not_our_domain" };
  return mailbox.id ? { kind: "mailbox", mailbox: mailbox as Mailbox } : { kind: "unknown_mailbox" };
}

export async function acceptInbound(svc: Services, raw: Uint8Array, mailboxes: Mailbox[], envelope: InboundEnvelope): Promise<string[]> {
  const watch = stopwatch();
  const parsed = await watch.time("parse", () => parseInbound(raw));
  const body = await watch.time("sanitize", async () =>
    sanitizeBody({ text: parsed.text, html: parsed.html }, { maxChars: svc.config.bodyCleanMaxChars }),
  );
  const unique = [...new Map(mailboxes.map((mailbox) => [mailbox.id, mailbox])).values()];
  const rawId = newId("raw");
  const digest = await sha256Hex(raw);

  // Claims are taken in mailbox id order, so two deliveries to several mailboxes cannot deadlock.
  const claimOrder = [...unique].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let copies = 0;

  const idByMailbox = await watch.time("store", () =>
    svc.sql.begin(async (tx) => {
      const ids = new Map<string, string>();
      let rawStored = false;
      // The writes do not depend on each other's results: they are sent without waiting for each
      // reply (postgres.js pipelines them on the transaction's connection, in order) and all awaited
      // before COMMIT. A failed one aborts the transaction like an awaited one would.
      const writes: Promise<void>[] = [];
      const write = (query: PromiseLike<unknown>) => {
        const done = Promise.resolve(query).then(() => {});
        done.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
        writes.push(done);
      };
      for (const mailbox of claimOrder) {
        const id = newId("msg");
        const earlier = await claimFirstCopy(tx, mailbox.id, parsed.rfcMessageId, digest, id);
        if (earlier !== null) {
          // A copy of a message this mailbox already holds: nothing new is stored or enqueued.
          copies++;
          ids.set(mailbox.id, earlier);
          continue;
        }
        if (!rawStored) {
          rawStored = true;
          write(tx`
          insert into raw_messages (id, size, sha256, content, remote_ip, helo, mail_from)
          values (${rawId}, ${raw.byteLength}, ${digest}, ${raw}, ${envelope.remoteIp}, ${envelope.helo}, ${envelope.mailFrom})`);
        }
        const threadId = await threadFor(tx, mailbox.id, parsed.inReplyTo, parsed.references);
        write(tx`
        insert into messages (id, account_id, mailbox_id, raw_message_id, direction, rfc_message_id, thread_id, in_reply_to,
          "references", from_addr, to_addr, subject, body_raw, body_clean, truncated, sanitization, hidden_text, parse_warnings, headers, unread_content)
        values (${id}, ${mailbox.account_id}, ${mailbox.id}, ${rawId}, 'in', ${parsed.rfcMessageId}, ${threadId}, ${parsed.inReplyTo},
          ${parsed.references}::text[], ${parsed.fromAddr ?? envelope.mailFrom ?? ""}, ${mailbox.address}, ${parsed.subject},
          ${body.body_raw}, ${body.body_clean}, ${body.truncated}, ${tx.json(body.report as never)}, ${body.hidden_text || null},
          ${parsed.warnings}::text[], ${tx.json(parsed.headerValues)}, ${parsed.unread})`);
        for (const attachment of parsed.attachments) {
          write(tx`
          insert into attachments (id, message_id, filename, content_type, size, sha256, content_id, disposition, content)
          values (${newId("att")}, ${id}, ${attachment.filename}, ${attachment.contentType}, ${attachment.size}, ${attachment.sha256},
            ${attachment.contentId}, ${attachment.disposition}, ${attachment.content})`);
        }
        write(enqueueJob(tx, "process_inbound", { message_id: id }, { jobKey: `inbound:${id}` }));
        ids.set(mailbox.id, id);
      }
      await Promise.all(writes);
      return ids;
    }),
  );
  const ids = unique.map((mailbox) => idByMailbox.get(mailbox.id)!);
  svc.log.info("inbound.accepted", {
    raw_message_id: rawId,
    message_ids: ids,
    copies_of_earlier: copies,
    size: raw.byteLength,
    warnings: parsed.warnings.length,
    stages_ms: watch.times,
  });
  return ids;
}
