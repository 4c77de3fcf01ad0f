// Attachments on drafts: upload (multipart/form-data), attach a message's attachment by reference,
// list and remove. Sending the draft sends them (POST /drafts/{id}/send, unchanged).
import { t } from "elysia";
import { errors } from "../../core/errors.ts";
import {
  addDraftAttachment,
  addDraftAttachmentFromMessage,
  listDraftAttachments,
  removeDraftAttachment,
} from "../../core/outbound/index.ts";
import type { Services } from "../../core/services.ts";
import { authErrors, ConflictError, ErrorBody, nullable, PathId, strictObject } from "../../request/models.ts";
import { apiRoutes, type Upload } from "../route-kit.ts";

export const DraftAttachment = strictObject(
  {
    id: t.String({ description: "dat_..." }),
    draft_id: t.String(),
    filename: t.String(),
    content_type: t.String({ description: "as declared, or as detected from the bytes when the declaration said nothing" }),
    size: t.Integer({ description: "bytes" }),
    sha256: t.String({ description: "hex SHA-256 of the bytes" }),
    source_attachment_id: nullable(t.String({ description: "the message attachment it was copied from" })),
    created_at: t.String(),
  },
  "a file a draft will send",
);

const Params = t.Object({ id: PathId });
const Refused = t.Object({ error: t.String(), code: t.Literal("attachment_infected") }, { additionalProperties: false });
const ScannerDown = t.Object({ error: t.String(), retryable: t.Literal(true) }, { additionalProperties: false });
const addErrors = {
  400: ErrorBody,
  ...authErrors,
  404: ErrorBody,
  409: ConflictError,
  413: ErrorBody,
  415: ErrorBody,
  422: Refused,
  503: ScannerDown,
};
const CHECKS =
  "The file is checked when it is added: at most ATTACHMENT_MAX_COUNT files (default 20) adding up to ATTACHMENT_MAX_BYTES " +
  "(default 18 MiB, about 24.3 MiB once base64-encoded in the message: under the common 25 MiB ceiling) per draft, else 400 " +
  "(count) or 413 (bytes); the declared content type must agree with the bytes (magic numbers): a contradiction is 400, an " +
  "absent or application/octet-stream type is replaced by the detected one; executables are refused (400). With ClamAV " +
  "configured every file is scanned: malware is 422 `attachment_infected`, no answer from the scanner 503 (retryable). Only a " +
  "`draft` takes attachments: pending_approval, sending answer 409 approval_conflict; sent, rejected, deleted or foreign " +
  "drafts are 404 `draft not found`.";

export const draftAttachmentRoutes = (svc: Services) =>
  apiRoutes(svc, "draft-attachments")
    .post(
      "/drafts/:id/attachments",
      async ({ principal, params, body, set }) => {
        const { file } = body as unknown as Upload;
        if (!file) throw errors.validation("the multipart/form-data body needs a file part named `file`");
        set.status = 201;
        return addDraftAttachment(svc, principal, params.id, file);
      },
      {
        auth: { endpoint: "write", upload: true },
        params: Params,
        response: { 201: DraftAttachment, ...addErrors },
        detail: {
          summary: "Attach a file to a draft",
          description: `Upload as multipart/form-data with one file part named \`file\`; its filename and Content-Type are kept (another body type is 415). ${CHECKS}`,
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: ["file"],
                  properties: { file: { type: "string", format: "binary", description: "the file, with its filename and content type" } },
                },
              },
            },
          },
        } as never,
      },
    )
    .post(
      "/drafts/:id/attachments/from-message",
      async ({ principal, params, body, set }) => {
        set.status = 201;
        return addDraftAttachmentFromMessage(svc, principal, params.id, body);
      },
      {
        auth: "write",
        params: Params,
        body: strictObject({
          message_id: t.String({ minLength: 1, maxLength: 100, description: "a message the key can read" }),
          attachment_id: t.String({ minLength: 1, maxLength: 100, description: "one of that message's attachments (att_...)" }),
        }),
        response: { 201: DraftAttachment, ...addErrors },
        detail: {
          summary: "Attach a message's attachment to a draft",
          description:
            "Copies an attachment of a message the key can read (received or sent) onto the draft, without uploading it again. " +
            "A message the key cannot read is 404 `message not found`; an unknown attachment id 404 `not found`; a message " +
            `screened as malware 422 \`attachment_infected\`. ${CHECKS}`,
        },
      },
    )
    .get(
      "/drafts/:id/attachments",
      async ({ principal, params }) => ({ attachments: await listDraftAttachments(svc.sql, principal, params.id) }),
      {
        auth: "read",
        params: Params,
        response: { 200: strictObject({ attachments: t.Array(DraftAttachment) }), ...authErrors, 404: ErrorBody },
        detail: {
          summary: "List a draft's attachments",
          description: "In the order they were added, without their bytes. 404 `draft not found` as for GET /drafts/{id}.",
        },
      },
    )
    .delete(
      "/drafts/:id/attachments/:attachment_id",
      async ({ principal, params, set }) => {
        await removeDraftAttachment(svc, principal, params.id, params.attachment_id);
        set.status = 204;
      },
      {
        auth: "write",
        params: t.Object({ id: PathId, attachment_id: PathId }),
        response: { 204: t.Void({ description: "removed" }), ...authErrors, 404: ErrorBody, 409: ConflictError },
        detail: {
          summary: "Remove an attachment from a draft",
          description:
            "Only a `draft` changes (409 approval_conflict otherwise). 404 `draft not found` as for GET /drafts/{id}; " +
            "404 `not found` when the draft has no such attachment.",
        },
      },
    );
