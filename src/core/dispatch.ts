// The send pipeline's last step, shared by POST /send, draft send and approval: record the
// outbound message, compose and sign it, hand it to the transport, record the outcome.
// The message row and its reconcile job commit before the transport is called, so a crash at any
// point leaves something the reconcile task can resolve; nothing is ever sent twice blindly.
import { composeMessage } from "../mail/compose.ts";
import type { DeliveryOutcome } from "../delivery/transport.ts";
import { signingKeyFor } from "./dkim.ts";
import { newId } from "./ids.ts";
import { enqueueJob } from "./jobs.ts";
import type { Mailbox } from "./mailboxes.ts";
import { releaseSend } from "./quota.ts";
import type { Services } from "./services.ts";
import { createUnsubscribeLinks } from "./unsubscribe.ts";

export type Dispatch = {
  mailbox: Mailbox;
  to: string;
  subject: string;
  text: string;
  threadId: string;
  inReplyTo: string | null;
  references: string[];
  draftId: string | null;
  /** Runs in the transaction that records the message (e.g. to tie an idempotency claim to it). */
  beforeDelivery?: (tx: Services["sql"] | any, messageId: string) => Promise<void>;
};

export type DispatchResult = { messageId: string; threadId: string; outcome: DeliveryOutcome };

export async function dispatchMessage(svc: Services, input: Dispatch): Promise<DispatchResult> {
  const { sql, config } = svc;
  const messageId = newId("msg");
  const domain = input.mailbox.domain_name;
  const rfcMessageId = `${messageId}@${domain}`;

  const raw = await sql.begin(async (tx) => {
    const unsubscribe = await createUnsubscribeLinks(tx, config, { accountId: input.mailbox.account_id, address: input.to, messageId });
    const raw = await composeMessage({
      from: input.mailbox.address,
      fromName: input.mailbox.display_name,
      to: input.to,
      subject: input.subject,
      text: input.text,
      messageId: rfcMessageId,
      inReplyTo: input.inReplyTo,
      references: input.references,
      unsubscribe,
      dkim: await signingKeyFor(tx, config, input.mailbox),
    });
    await tx`
      insert into messages (id, account_id, mailbox_id, direction, rfc_message_id, thread_id, in_reply_to, "references",
        from_addr, to_addr, subject, body_raw, body_clean, truncated, delivery_status, delivery_attempts, draft_id, raw_outbound)
      values (${messageId}, ${input.mailbox.account_id}, ${input.mailbox.id}, 'out', ${`<${rfcMessageId}>`}, ${input.threadId},
        ${input.inReplyTo}, ${input.references}::text[], ${input.mailbox.address}, ${input.to}, ${input.subject},
        ${input.text}, ${input.text}, false, 'sending', 1, ${input.draftId}, ${raw})`;
    // Runs after the grace period whatever happens; it does nothing once the outcome is recorded.
    await enqueueJob(tx, "reconcile_send", { message_id: messageId }, {
      jobKey: `reconcile:${messageId}`,
      runAt: new Date(Date.now() + config.reconcileGraceSeconds * 1000),
    });
    if (input.beforeDelivery) await input.beforeDelivery(tx, messageId);
    return raw;
  });

  const outcome = await svc.transport.deliver({ from: input.mailbox.address, to: input.to }, raw, { messageId: rfcMessageId });
  await recordOutcome(svc, messageId, input.mailbox.account_id, outcome, { keepForRetry: input.draftId !== null });
  svc.log.info("outbound.delivery", { message_id: messageId, transport: svc.transport.name, outcome: outcome.kind, draft_id: input.draftId });
  return { messageId, threadId: input.threadId, outcome };
}

/**
 * sent → the message is visible as sent. permanent or transient → it never left: the row goes
 * (a draft's transient failure keeps it for the reconcile task to retry) and the quota is given
 * back. unknown → it stays for reconciliation.
 */
export async function recordOutcome(
  svc: Services,
  messageId: string,
  accountId: string,
  outcome: DeliveryOutcome,
  options: { keepForRetry: boolean },
): Promise<void> {
  const { sql, config } = svc;
  const reconcileJob = `reconcile:${messageId}`;
  switch (outcome.kind) {
    case "sent":
      await sql.begin(async (tx) => {
        await tx`
          update messages set delivery_status = 'sent', provider_message_id = ${outcome.providerMessageId}, delivery_error = null, raw_outbound = null
          where id = ${messageId}`;
        await tx`select graphile_worker.remove_job(${reconcileJob})`;
      });
      return;
    case "unknown":
      await sql`update messages set delivery_status = 'unknown', delivery_error = ${outcome.error} where id = ${messageId}`;
      return;
    case "transient":
      if (options.keepForRetry) {
        await sql.begin(async (tx) => {
          await tx`update messages set delivery_status = 'retry', delivery_error = ${outcome.error} where id = ${messageId}`;
          // Same job key: the pending reconcile job moves earlier instead of a second one appearing.
          await enqueueJob(tx, "reconcile_send", { message_id: messageId }, { jobKey: reconcileJob, runAt: new Date(Date.now() + config.deliveryRetrySeconds * 1000) });
        });
        return;
      }
      break;
    case "permanent":
      break;
  }
  await sql.begin(async (tx) => {
    await tx`select graphile_worker.remove_job(${reconcileJob})`;
    await tx`delete from unsubscribe_tokens where message_id = ${messageId}`;
    await tx`delete from messages where id = ${messageId}`;
    await releaseSend(tx, accountId);
  });
}
