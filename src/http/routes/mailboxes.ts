// POST /api/v1/mailboxes and GET /api/v1/mailboxes.
import { t } from "elysia";
import { createMailbox, listMailboxes } from "../../core/mailboxes.ts";
import type { Services } from "../../core/services.ts";
import { clampLimit } from "../../request/limit.ts";
import { MailboxFields } from "../../request/mailbox-fields.ts";
import { authErrors, ErrorBody, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";

const CreateMailboxBody = t.Optional(strictObject(MailboxFields));

const MailboxCreated = strictObject({ id: t.String(), address: t.String() });
const MailboxSummary = strictObject({
  id: t.String(),
  address: t.String(),
  display_name: t.Union([t.String(), t.Null()]),
  created_at: t.String(),
  paused: t.Boolean({
    description:
      "true while a human has paused the mailbox: its sends and draft submissions answer 202 pending_approval (held for a human: " +
      "do not resend); inbound mail keeps arriving",
  }),
});

export const mailboxRoutes = (svc: Services) =>
  apiRoutes(svc, "mailboxes")
    .post(
      "/mailboxes",
      async ({ principal, body, set }) => {
        set.status = 201;
        return createMailbox(svc, principal, body ?? {});
      },
      {
        auth: "mailboxCreate",
        body: CreateMailboxBody,
        response: {
          201: MailboxCreated,
          400: ErrorBody,
          ...authErrors,
          404: ErrorBody,
          413: ErrorBody,
        },
        detail: {
          summary: "Create a mailbox",
          description:
            "Accepts bootstrap, api and mcp keys; a mailbox-bound key is rejected. The address is " +
            "`agent-<slug>@<shared domain>` without `domain_id`, `<slug>@<custom domain>` with one. 404 when " +
            "`extraction_schema_id` or `domain_id` is not the account's; 400 when the domain is not verified " +
            "or the address is already taken (`mailbox address already in use`); 403 when custom domains " +
            "need a paid plan.",
        },
      },
    )
    .get(
      "/mailboxes",
      async ({ principal, query }) => ({
        mailboxes: await listMailboxes(svc.sql, principal, clampLimit(query.limit, 100, 1000)),
      }),
      {
        auth: "mailboxList",
        query: strictObject({
          limit: t.Optional(t.Integer({ title: "limit", minimum: 1, description: "default 100, values above 1000 are clamped to 1000" })),
        }),
        response: { 200: strictObject({ mailboxes: t.Array(MailboxSummary) }), 400: ErrorBody, ...authErrors },
        detail: {
          summary: "List mailboxes",
          description: "Newest first. Needs `can_read`. A mailbox-bound key sees only its own mailbox.",
        },
      },
    );
