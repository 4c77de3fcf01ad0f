// list_mailboxes and create_mailbox: GET and POST /api/v1/mailboxes.
import { t } from "elysia";
import { createMailbox, listMailboxes } from "../core/mailboxes.ts";
import { clampLimit } from "../request/limit.ts";
import { MailboxFields } from "../request/mailbox-fields.ts";
import { strictObject } from "../request/models.ts";
import { described } from "./outgoing-fields.ts";
import { defineTool } from "./tool.ts";

export const listMailboxesTool = defineTool({
  name: "list_mailboxes",
  title: "List mailboxes",
  description:
    "List the mailboxes this API key can use, newest first: id, address, display_name, created_at. " +
    "A key bound to one mailbox sees only that mailbox. Pass a mailbox's `id` as `mailbox_id` to the other tools; " +
    "its `address` is the email address people write to.",
  input: strictObject({
    limit: t.Optional(
      t.Number({ minimum: 1, multipleOf: 1, description: "how many mailboxes to return; default 100, values above 1000 count as 1000" }),
    ),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  endpointClass: "mailboxList",
  run: async ({ svc, principal }, args) => ({
    body: { mailboxes: await listMailboxes(svc.sql, principal, clampLimit(args.limit, 100, 1000)) },
  }),
});

export const createMailboxTool = defineTool({
  name: "create_mailbox",
  title: "Create a mailbox",
  description:
    "Create a new mailbox (an email address that can send and receive) and return {id, address}. " +
    "Without `domain_id` the address is agent-<slug>@<the service's shared domain>. " +
    "Not allowed for a key bound to a single mailbox. A slug already in use is refused with 400 `mailbox address already in use`.",
  input: strictObject({
    slug: described(
      MailboxFields.slug,
      "local part of the address: lowercase letters, digits and hyphens, 1 to 41 characters, starting with " +
        "a letter or digit; random when omitted",
    ),
    display_name: described(MailboxFields.display_name, "name shown in the From header of sent mail; no line breaks or control characters"),
    extraction_schema_id: described(MailboxFields.extraction_schema_id, "an extraction schema of this account, applied to inbound mail"),
    domain_id: described(MailboxFields.domain_id, "a verified custom domain of this account (paid plan); omit for the shared domain"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  endpointClass: "mailboxCreate",
  run: async ({ svc, principal }, args) => ({ body: await createMailbox(svc, principal, args) }),
});
