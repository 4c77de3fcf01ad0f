// attach_file, attach_message_attachment, list_draft_attachments, remove_draft_attachment: the draft
// attachment endpoints. A file comes as base64 in the arguments, so it is capped well below the HTTP
// upload (MCP_ATTACHMENT_MAX_BYTES): a larger file goes through POST /api/v1/drafts/{id}/attachments,
// and a received attachment is attached by reference without passing through the agent at all.
import { t } from "elysia";
import { errors } from "../core/errors.ts";
import {
  addDraftAttachment,
  addDraftAttachmentFromMessage,
  attachmentErrors,
  listDraftAttachments,
  MCP_ATTACHMENT_MAX_BYTES,
  removeDraftAttachment,
} from "../core/outbound/index.ts";
import { strictObject } from "../request/models.ts";
import { defineTool } from "./tool.ts";

const draftId = t.String({ minLength: 1, maxLength: 100, description: "draft id (drf_...), from create_draft or list_drafts" });
const ATTACHMENT_FIELDS = "An attachment is {id, draft_id, filename, content_type, size, sha256, source_attachment_id, created_at}.";
const CHECKS =
  "Checks when added: the declared content_type must match the bytes (a mismatch is 400: fix the type or omit it to let the " +
  "service detect it); executables are refused (400); a draft holds at most 20 files adding up to 18 MiB (400/413); with a " +
  "virus scanner configured, malware is 422 attachment_infected (do not retry) and 503 means the scanner was down (retry). " +
  "Only a draft in status `draft` takes or loses attachments (409 approval_conflict otherwise). send_draft sends them.";
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const attachFileTool = defineTool({
  name: "attach_file",
  title: "Attach a file to a draft",
  description:
    `Add a file to a draft, given as base64 (at most ${MCP_ATTACHMENT_MAX_BYTES / 1024} KiB decoded; larger files: the HTTP upload ` +
    "endpoint, or attach_message_attachment for a file that arrived by mail). Returns the attachment. " +
    `${ATTACHMENT_FIELDS} ${CHECKS}`,
  input: strictObject({
    draft_id: draftId,
    filename: t.String({ minLength: 1, maxLength: 255, description: "the name the recipient sees, e.g. invoice.pdf" }),
    content_type: t.Optional(t.String({ maxLength: 200, description: "e.g. application/pdf; omit to have it detected from the bytes" })),
    content_base64: t.String({
      minLength: 1,
      maxLength: Math.ceil(MCP_ATTACHMENT_MAX_BYTES / 3) * 4 + 1024,
      description: "the file's bytes, base64-encoded (standard alphabet; whitespace is ignored)",
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  endpointClass: "write",
  run: async ({ svc, principal }, args) => {
    const encoded = args.content_base64.replace(/\s+/g, "");
    if (!BASE64.test(encoded) || encoded.length % 4 === 1) throw errors.validation("content_base64 is not valid base64");
    const content = new Uint8Array(Buffer.from(encoded, "base64"));
    if (content.byteLength > MCP_ATTACHMENT_MAX_BYTES) throw attachmentErrors.tooLarge(MCP_ATTACHMENT_MAX_BYTES);
    const attachment = await addDraftAttachment(svc, principal, args.draft_id, {
      filename: args.filename,
      contentType: args.content_type ?? null,
      content,
    });
    return { body: attachment };
  },
});

export const attachMessageAttachmentTool = defineTool({
  name: "attach_message_attachment",
  title: "Attach a received file to a draft",
  description:
    "Copy an attachment of a message you can read (its id and the attachment id from get_message) onto a draft, without " +
    `sending the bytes yourself. Returns the attachment. ${ATTACHMENT_FIELDS} 404 when the message or attachment is not ` +
    `visible to you; 422 attachment_infected when the message was screened as malware. ${CHECKS}`,
  input: strictObject({
    draft_id: draftId,
    message_id: t.String({ minLength: 1, maxLength: 100, description: "msg_..." }),
    attachment_id: t.String({ minLength: 1, maxLength: 100, description: "att_..., from the message's attachments" }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  endpointClass: "write",
  run: async ({ svc, principal }, { draft_id, ...source }) => ({
    body: await addDraftAttachmentFromMessage(svc, principal, draft_id, source),
  }),
});

export const listDraftAttachmentsTool = defineTool({
  name: "list_draft_attachments",
  title: "List a draft's attachments",
  description: `The files a draft will send, as {attachments: [...]}, in the order added. ${ATTACHMENT_FIELDS}`,
  input: strictObject({ draft_id: draftId }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  endpointClass: "read",
  run: async ({ svc, principal }, args) => ({ body: { attachments: await listDraftAttachments(svc.sql, principal, args.draft_id) } }),
});

export const removeDraftAttachmentTool = defineTool({
  name: "remove_draft_attachment",
  title: "Remove an attachment from a draft",
  description:
    "Remove one file from a draft in status `draft`; returns {id, removed: true}. 404 when the draft or attachment is unknown; " +
    "409 approval_conflict when the draft is pending approval or sending.",
  input: strictObject({ draft_id: draftId, attachment_id: t.String({ minLength: 1, maxLength: 100, description: "dat_..." }) }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  endpointClass: "write",
  run: async ({ svc, principal }, args) => {
    await removeDraftAttachment(svc, principal, args.draft_id, args.attachment_id);
    return { body: { id: args.attachment_id, removed: true } };
  },
});
