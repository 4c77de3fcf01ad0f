// The mailbox-create fields, read alike by POST /api/v1/mailboxes and the create_mailbox MCP tool.
import { t } from "elysia";
import { SLUG_PATTERN } from "../core/mailboxes.ts";

/** The mailbox-create fields; create_mailbox (MCP) takes the same ones. */
export const MailboxFields = {
  slug: t.Optional(t.String({ pattern: SLUG_PATTERN, description: "random hex when omitted" })),
  // No control characters: the name goes into the From header of every message.
  display_name: t.Optional(
    t.String({
      maxLength: 200,
      pattern: "^[^\\u0000-\\u001f\\u007f]*$",
      errorMessage: "must not contain control characters or line breaks",
    }),
  ),
  extraction_schema_id: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  domain_id: t.Optional(
    t.String({ minLength: 1, maxLength: 100, description: "a verified custom domain (paid plan); omit for the shared domain" }),
  ),
};
