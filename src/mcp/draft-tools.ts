// create_draft, list_drafts, get_draft, update_draft, delete_draft, send_draft: the draft endpoints.
import { t } from "elysia";
import { createDraft, deleteDraft, getDraft, listDrafts, sendDraft, updateDraft } from "../core/outbound/index.ts";
import { strictObject } from "../request/models.ts";
import { clientId } from "../request/outgoing-models.ts";
import { outgoingArguments } from "./outgoing-fields.ts";
import { sendResult } from "./results.ts";
import { defineTool } from "./tool.ts";

const draftId = t.String({ minLength: 1, maxLength: 100, description: "draft id (drf_...), from create_draft or list_drafts" });
const DRAFT_FIELDS =
  "A draft is {id, mailbox_id, status, to, subject, text, reply_to_message_id, requires_human, thread_id, created_at, updated_at}.";

export const createDraftTool = defineTool({
  name: "create_draft",
  title: "Create a draft",
  description:
    'Save an email as a draft without sending it; returns {id, status: "draft"}. Same arguments and checks as send_email. ' +
    "Edit it with update_draft and send it with send_draft. Not idempotent: calling it twice makes two drafts.",
  input: strictObject({
    ...outgoingArguments,
    client_id: clientId(
      "optional label kept with the draft, 1 to 256 characters, not starting with `draft:`; it does not deduplicate drafts",
    ),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  endpointClass: "write",
  run: async ({ svc, principal }, args) => ({ body: await createDraft(svc, principal, args) }),
});

export const listDraftsTool = defineTool({
  name: "list_drafts",
  title: "List drafts",
  description:
    `List a mailbox's live drafts (status draft, pending_approval or sending), newest first, as {drafts: ` +
    `[...]}. ${DRAFT_FIELDS} Sent, rejected and deleted drafts are not listed.`,
  input: strictObject({ mailbox_id: t.String({ minLength: 1, maxLength: 100, description: "id of the mailbox" }) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  endpointClass: "read",
  run: async ({ svc, principal }, args) => ({ body: { drafts: await listDrafts(svc.sql, principal, args.mailbox_id) } }),
});

export const getDraftTool = defineTool({
  name: "get_draft",
  title: "Read a draft",
  description: `Read one draft. ${DRAFT_FIELDS} Sent, rejected and deleted drafts answer 404 \`draft not found\`.`,
  input: strictObject({ id: draftId }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  endpointClass: "read",
  run: async ({ svc, principal }, args) => ({ body: await getDraft(svc.sql, principal, args.id) }),
});

export const updateDraftTool = defineTool({
  name: "update_draft",
  title: "Edit a draft",
  description:
    "Change a draft's recipient, subject or text; omitted fields keep their value. Returns the updated draft. " +
    "Only a draft in status `draft` can be edited: one pending approval, sending or sent answers 409 approval_conflict. " +
    "reply_to_message_id cannot be changed.",
  input: strictObject({
    id: draftId,
    to: t.Optional(t.String({ minLength: 1, maxLength: 998, description: "exactly one recipient address" })),
    subject: t.Optional(t.String({ maxLength: 998, description: "subject line, no line breaks" })),
    text: t.Optional(t.String({ minLength: 1, maxLength: 500_000, description: "the plain-text body" })),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  endpointClass: "write",
  run: async ({ svc, principal }, { id, ...patch }) => ({ body: await updateDraft(svc.sql, principal, id, patch) }),
});

export const deleteDraftTool = defineTool({
  name: "delete_draft",
  title: "Delete a draft",
  description:
    "Delete a draft in status `draft` (the HTTP API answers 204; this tool returns {id, deleted: true}). " +
    "A draft pending approval, sending or sent answers 409 approval_conflict.",
  input: strictObject({ id: draftId }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  endpointClass: "write",
  run: async ({ svc, principal }, args) => {
    await deleteDraft(svc.sql, principal, args.id);
    return { body: { id: args.id, deleted: true } };
  },
});

export const sendDraftTool = defineTool({
  name: "send_draft",
  title: "Send a draft",
  description:
    'Send a draft. Results: {id, draft_id, thread_id, provider_message_id} when delivered; {draft_id, status: "pending_approval"} ' +
    "when the mailbox needs a human's approval or is paused: held for a human: do not resend (calling again changes nothing; a human approves or rejects it, and an unanswered review expires as rejected). " +
    "Errors are {status, error, code}: 422 when the draft has no recipient (set one with update_draft); 409 approval_conflict " +
    "when it is already sending or gone; on 502 the draft stays `sending` and the service finishes it, so do not resend it: it ends sent, " +
    "or back in `draft` with last_error when delivery kept failing or its outcome stayed unknown (it may have arrived: check before sending again).",
  input: strictObject({ id: draftId }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  endpointClass: "write",
  run: async ({ svc, principal }, args) => ({ body: sendResult(await sendDraft(svc, principal, args.id)) }),
});
