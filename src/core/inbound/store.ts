// Accepting inbound mail: the one path for the SMTP listener and for local delivery. The raw
// message, one row per recipient mailbox and the processing job commit in one statement (one
// transaction, one round trip); a caller answers success only after this returns.

import { type Bytes, byteLengthOf, joined } from "../../byte-blocks.ts";
import { parseInbound } from "../../mail/parse.ts";
import { sanitizeBody } from "../../mail/sanitize.ts";
import { sha256HexInSlices } from "../../sha256-in-slices.ts";
import { bodyRow, longBodies } from "../body-objects.ts";
import { attachmentKey, rawKey } from "../content.ts";
import { newId } from "../ids.ts";
import { wakeWorkers } from "../job-wakeup.ts";
import { ensureTask, jobInsertQuietly } from "../jobs.ts";
import type { Mailbox } from "../mailboxes.ts";
import { MAILTO_LOCAL_PREFIX } from "../outbound/index.ts";
import type { Services } from "../services.ts";
import { stopwatch } from "../stage-times.ts";
import { claimFirstCopies, claimHeld, copyStart } from "./dedupe.ts";
import { type ContentValue, contentValue, dropStaged, unstage } from "./staged-content.ts";
import { threadIdExpression } from "./threading.ts";

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

export async function acceptInbound(svc: Services, raw: Bytes, mailboxes: Mailbox[], envelope: InboundEnvelope): Promise<string[]> {
  const watch = stopwatch();
  const size = byteLengthOf(raw);
  const parsed = await watch.time("parse", () => parseInbound(raw));
  const body = await watch.time("sanitize", async () =>
    sanitizeBody({ text: parsed.text, html: parsed.html }, { maxChars: svc.config.bodyCleanMaxChars }),
  );
  // Bodies above the store's threshold: encoded and hashed once, whatever the number of copies.
  const long = longBodies(svc, body);
  const unique = [...new Map(mailboxes.map((mailbox) => [mailbox.id, mailbox])).values()];
  const rawId = newId("raw");
  // Both digests in one pass, a slice at a time: the raw message's, and the one that identifies a copy.
  const [digest, copyOfDigest] = await watch.time("hash", () => sha256HexInSlices(raw, [0, copyStart(raw)]));
  const copyId = parsed.rfcMessageId === null ? "" : copyOfDigest!;
  await ensureTask(svc.sql, "process_inbound");

  // Claims are taken in mailbox id order, so two deliveries to several mailboxes cannot deadlock.
  const planned = [...unique]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((mailbox) => {
      const id = newId("msg");
      return { mailbox, id, attachmentIds: parsed.attachments.map(() => newId("att")), bodies: bodyRow(id, body, long) };
    });
  const rfcMessageId = parsed.rfcMessageId;

  // With an object store the bytes go there first, each write checked (blob-store.ts): the rows
  // below only name them, and a store that fails makes this throw, so the sender gets a 4xx.
  // Each copy's long bodies are its own objects, so retention can empty one copy and not another.
  const blobs = svc.blobs;
  const bodyKeys = (bodies: (typeof planned)[number]["bodies"]) => bodies.objects.map(({ key }) => key);
  const objectKeys = blobs
    ? [rawKey(rawId), ...planned.flatMap(({ attachmentIds, bodies }) => [...attachmentIds.map(attachmentKey), ...bodyKeys(bodies)])]
    : [];
  if (blobs) {
    await watch.time("store_objects", () =>
      Promise.all([
        blobs.put(rawKey(rawId), joined(raw)),
        ...planned.flatMap(({ attachmentIds }) =>
          attachmentIds.map((id, i) => blobs.put(attachmentKey(id), parsed.attachments[i]!.content)),
        ),
        ...planned.flatMap(({ bodies }) => bodies.objects.map(({ key, bytes }) => blobs.put(key, bytes))),
      ]),
    );
  }

  // One statement, so one transaction and one reply: each insert is a common table expression.
  // Whether a mailbox's copy is stored is decided inside it, by its claim (a copy of an earlier
  // message stores and enqueues nothing); a message without a Message-ID is always stored. As
  // separate statements, even pipelined, each cost the database its own executor start-up and a
  // reply written to the socket, and this process a wake-up per reply.
  const dropObjects = (keys: string[]) =>
    void Promise.all(keys.map((key) => blobs!.delete(key))).catch((error: Error) =>
      svc.log.warn("content.store_delete_failed", { keys, error: error.message }),
    );
  const sql = svc.sql;
  // Without a store the bytes go into the statement, or, when large, are staged a slice at a time
  // before it (staged-content.ts).
  const contents = blobs
    ? []
    : await watch.time("encode", async () => {
        const values: ContentValue[] = [];
        try {
          for (const bytes of [raw, ...parsed.attachments.map((attachment) => attachment.content)]) {
            values.push(await contentValue(sql, bytes));
          }
        } catch (error) {
          dropStaged(sql, stagedIdsOf(values));
          throw error;
        }
        return values;
      });
  const stagedIds = stagedIdsOf(contents);
  const rawContent = contents[0]?.expression ?? null;
  const attachmentContents = parsed.attachments.map((_, i) => contents[i + 1]?.expression ?? null);
  const storedIf = (messageIds: string[]) => (rfcMessageId === null ? sql`true` : claimHeld(sql, messageIds));
  const inserts = [
    sql`raw_row as (
      insert into raw_messages (id, size, sha256, content, remote_ip, helo, mail_from, blob_key)
      select ${rawId}, ${size}, ${digest}, ${rawContent}, ${envelope.remoteIp}, ${envelope.helo}, ${envelope.mailFrom}, ${blobs ? rawKey(rawId) : null}
      where ${storedIf(planned.map(({ id }) => id))})`,
  ];
  planned.forEach(({ mailbox, id, attachmentIds, bodies: { columns } }, m) => {
    const stored = storedIf([id]);
    const threadId = threadIdExpression(sql, mailbox.id, parsed.inReplyTo, parsed.references);
    inserts.push(sql`${sql(`message_${m}`)} as (
      insert into messages (id, account_id, mailbox_id, raw_message_id, direction, rfc_message_id, thread_id, in_reply_to,
        "references", from_addr, to_addr, subject, body_raw, body_clean, body_raw_key, body_raw_sha256, body_clean_key, body_clean_sha256,
        truncated, sanitization, hidden_text, parse_warnings, headers, unread_content)
      select ${id}, ${mailbox.account_id}, ${mailbox.id}, ${rawId}, 'in', ${rfcMessageId}, ${threadId}, ${parsed.inReplyTo},
        ${parsed.references}::text[], ${parsed.fromAddr ?? envelope.mailFrom ?? ""}, ${mailbox.address}, ${parsed.subject},
        ${columns.body_raw}, ${columns.body_clean}, ${columns.body_raw_key}, ${columns.body_raw_sha256}, ${columns.body_clean_key},
        ${columns.body_clean_sha256}, ${body.truncated}, ${sql.json(body.report as never)}, ${body.hidden_text || null},
        ${parsed.warnings}::text[], ${sql.json(parsed.headerValues)}, ${parsed.unread}
      where ${stored})`);
    parsed.attachments.forEach((attachment, i) => {
      const attachmentId = attachmentIds[i]!;
      inserts.push(sql`${sql(`attachment_${m}_${i}`)} as (
        insert into attachments (id, message_id, filename, content_type, size, sha256, content_id, disposition, content, blob_key)
        select ${attachmentId}, ${id}, ${attachment.filename}, ${attachment.contentType}, ${attachment.size}, ${attachment.sha256},
          ${attachment.contentId}, ${attachment.disposition}, ${attachmentContents[i]}, ${blobs ? attachmentKey(attachmentId) : null}
        where ${stored})`);
    });
    // Without add_job's NOTIFY, which would make concurrent accepts commit one at a time (jobs.ts).
    inserts.push(sql`${sql(`job_${m}`)} as (${jobInsertQuietly(sql, "process_inbound", { message_id: id }, `inbound:${id}`, stored)})`);
  });
  const claims =
    rfcMessageId === null
      ? sql`claims (mailbox_id, message_id) as (select null::text, null::text where false)`
      : sql`claims as (${claimFirstCopies(
          sql,
          rfcMessageId,
          copyId,
          planned.map(({ mailbox, id }) => ({ mailboxId: mailbox.id, messageId: id })),
        )})`;
  const expressions = [claims, ...inserts, ...(stagedIds.length > 0 ? [unstage(sql, stagedIds)] : [])].reduce(
    (list, next) => sql`${list}, ${next}`,
  );
  // The reply comes after COMMIT (an implicit transaction ends at the statement's Sync, and
  // postgres.js resolves at ReadyForQuery), so success here means durable.
  const held = await watch
    .time("store", () => sql`with ${expressions} select mailbox_id, message_id from claims`)
    .catch((error) => {
      // Nothing committed names the objects or used the slices when the statement failed (the sender retries).
      if (blobs) dropObjects(objectKeys);
      dropStaged(sql, stagedIds);
      throw error;
    });

  // Each mailbox's message: ours, or the earlier copy its claim named.
  const idByMailbox = new Map<string, string>(planned.map(({ mailbox, id }) => [mailbox.id, id]));
  for (const row of held) idByMailbox.set(row.mailbox_id as string, row.message_id as string);
  const copies = planned.filter(({ mailbox, id }) => idByMailbox.get(mailbox.id) !== id).length;
  if (blobs && copies > 0) {
    // Objects written for copies that were not stored again: nothing names them.
    const unused = planned
      .filter(({ mailbox, id }) => idByMailbox.get(mailbox.id) !== id)
      .flatMap(({ attachmentIds, bodies }) => [...attachmentIds.map(attachmentKey), ...bodyKeys(bodies)]);
    if (copies === planned.length) unused.push(rawKey(rawId));
    dropObjects(unused);
  }
  const ids = unique.map((mailbox) => idByMailbox.get(mailbox.id)!);
  wakeWorkers(svc.sql, unique.length - copies);
  svc.log.info("inbound.accepted", {
    raw_message_id: rawId,
    message_ids: ids,
    copies_of_earlier: copies,
    size,
    warnings: parsed.warnings.length,
    stages_ms: watch.times,
  });
  return ids;
}

const stagedIdsOf = (values: ContentValue[]) => values.flatMap((value) => (value.stagedId ? [value.stagedId] : []));
