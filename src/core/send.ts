// POST /api/v1/send. Checks run in the order DESIGN.md fixes: body validation, mailbox and key
// binding, idempotency, send lists, suppression, approval, quota, delivery. A blocked or
// suppressed recipient never reaches the queue.
import { dispatchMessage } from "./dispatch.ts";
import { createForcedDraft } from "./drafts.ts";
import { ApiError } from "./errors.ts";
import {
  attachMessage,
  claimIdempotencyKey,
  finishIdempotencyKey,
  payloadHash,
  releaseIdempotencyKey,
  type IdempotencyKey,
  type StoredResponse,
} from "./idempotency.ts";
import { resolveOutgoing, type OutgoingRequest } from "./outgoing.ts";
import { checkRecipientPolicy } from "./policy.ts";
import type { Principal } from "./principal.ts";
import { reserveSend } from "./quota.ts";
import type { Services } from "./services.ts";
import { outcomeResponse } from "./outcome.ts";

export async function sendMessage(svc: Services, principal: Principal, body: OutgoingRequest): Promise<StoredResponse> {
  const outgoing = await resolveOutgoing(svc.sql, principal, body);
  const key: IdempotencyKey | null = body.client_id
    ? { accountId: principal.accountId, mailboxId: outgoing.mailbox.id, clientId: body.client_id }
    : null;

  if (key) {
    const claim = await claimIdempotencyKey(svc.sql, key, await payloadHash({ ...body }));
    if (!claim.claimed) return { status: claim.replay.status === 201 ? 200 : claim.replay.status, body: claim.replay.body };
  }

  try {
    const to = outgoing.to!;
    await checkRecipientPolicy(svc.sql, principal.accountId, outgoing.mailbox.id, to);

    if (outgoing.mailbox.require_approval) {
      const draft = await createForcedDraft(svc.sql, principal, outgoing, body.client_id ?? null);
      const response = { status: 202, body: { draft_id: draft.id, status: "pending_approval" } };
      if (key) await finishIdempotencyKey(svc.sql, key, "completed", response);
      return response;
    }

    await reserveSend(svc.sql, svc.config, principal.accountId);
    const result = await dispatchMessage(svc, {
      mailbox: outgoing.mailbox,
      to,
      subject: outgoing.subject,
      text: outgoing.text,
      threadId: outgoing.threadId,
      inReplyTo: outgoing.reply?.inReplyTo ?? null,
      references: outgoing.reply?.references ?? [],
      draftId: null,
      beforeDelivery: key ? (tx, messageId) => attachMessage(tx, key, messageId) : undefined,
    });
    const response = outcomeResponse(result, null);
    if (key) {
      if (result.outcome.kind === "sent") await finishIdempotencyKey(svc.sql, key, "completed", response);
      else if (result.outcome.kind === "permanent") await finishIdempotencyKey(svc.sql, key, "failed_terminal", response);
      else if (result.outcome.kind === "transient") await releaseIdempotencyKey(svc.sql, key);
      // unknown: the claim stays in_progress until the reconcile task records the outcome.
    }
    return response;
  } catch (error) {
    if (key && error instanceof ApiError) {
      // 402 is terminal for this client_id; policy refusals (403, 422) are re-evaluated on retry.
      if (error.status === 402) await finishIdempotencyKey(svc.sql, key, "failed_terminal", { status: 402, body: error.body });
      else await releaseIdempotencyKey(svc.sql, key);
    } else if (key) {
      await releaseIdempotencyKey(svc.sql, key).catch(() => {});
    }
    throw error;
  }
}

