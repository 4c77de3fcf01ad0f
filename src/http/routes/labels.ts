// Labels on messages and threads (inbox state): list and change one message's or one thread's
// labels, and change many messages at once. Changes need can_read (core/labels.ts says why).
import { t } from "elysia";
import {
  batchChangeLabels,
  changeMessageLabels,
  changeThreadLabels,
  getMessageLabels,
  getThreadLabels,
  LABEL_LIMITS,
} from "../../core/labels.ts";
import type { Services } from "../../core/services.ts";
import { authErrors, ErrorBody, PathId, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";

const Label = t.String({ minLength: 1, maxLength: LABEL_LIMITS.length });
const labelList = (what: string) =>
  t.Optional(t.Array(Label, { maxItems: LABEL_LIMITS.perChange, description: `labels to ${what} (at most ${LABEL_LIMITS.perChange})` }));
const Change = { add: labelList("add"), remove: labelList("remove") };
const Labels = strictObject({ labels: t.Array(t.String()) });
const Params = t.Object({ id: PathId });
const RULES =
  "A label is 1 to 64 characters of a-z, 0-9 and _ . : / - (case is folded). `read`/`unread`: inbound mail is unread until marked " +
  "read (adding `unread` removes `read`); outbound mail is read. `archived` is a label like any other: listings filter on it " +
  "(`label=`), never hide it. At most 50 labels per message.";

export const labelRoutes = (svc: Services) =>
  apiRoutes(svc, "labels")
    .get("/messages/:id/labels", async ({ principal, params }) => ({ labels: await getMessageLabels(svc.sql, principal, params.id) }), {
      auth: "read",
      params: Params,
      response: { 200: Labels, ...authErrors, 404: ErrorBody },
      detail: { summary: "A message's labels", description: `Sorted. 404 \`message not found\` as for GET /messages/{id}. ${RULES}` },
    })
    .post(
      "/messages/:id/labels",
      async ({ principal, params, body }) => ({ labels: await changeMessageLabels(svc.sql, principal, params.id, body) }),
      {
        auth: "read",
        params: Params,
        body: strictObject(Change),
        response: { 200: Labels, 400: ErrorBody, ...authErrors, 404: ErrorBody },
        detail: {
          summary: "Add and remove a message's labels",
          description: `Returns the labels after the change. Needs can_read (inbox bookkeeping, not sending). ${RULES}`,
        },
      },
    )
    .get("/threads/:id/labels", async ({ principal, params }) => ({ labels: await getThreadLabels(svc.sql, principal, params.id) }), {
      auth: "read",
      params: Params,
      response: { 200: Labels, ...authErrors, 404: ErrorBody },
      detail: {
        summary: "A thread's labels",
        description:
          "The labels any of its messages carries, except `read` and `archived`, which a thread has only when every message has " +
          `them (new mail makes it unread and unarchived). 404 \`thread not found\`. ${RULES}`,
      },
    })
    .post(
      "/threads/:id/labels",
      async ({ principal, params, body }) => ({ labels: await changeThreadLabels(svc.sql, principal, params.id, body) }),
      {
        auth: "read",
        params: Params,
        body: strictObject(Change),
        response: { 200: Labels, 400: ErrorBody, ...authErrors, 404: ErrorBody },
        detail: {
          summary: "Add and remove a thread's labels",
          description: `Applies the change to every message of the thread the key can see; returns the thread's labels after it. ${RULES}`,
        },
      },
    )
    .post("/labels/batch", async ({ principal, body }) => batchChangeLabels(svc.sql, principal, body), {
      auth: "read",
      body: strictObject({
        message_ids: t.Array(t.String({ minLength: 1, maxLength: 100 }), {
          minItems: 1,
          maxItems: LABEL_LIMITS.batchMessages,
          description: `at most ${LABEL_LIMITS.batchMessages} message ids`,
        }),
        ...Change,
      }),
      response: {
        200: strictObject({
          updated: t.Array(t.String(), { description: "the ids changed" }),
          not_found: t.Array(t.String(), { description: "ids missing or not visible to the key (never told apart)" }),
        }),
        400: ErrorBody,
        ...authErrors,
      },
      detail: {
        summary: "Change labels on many messages",
        description: `One change over up to ${LABEL_LIMITS.batchMessages} messages, in one transaction. ${RULES}`,
      },
    });
