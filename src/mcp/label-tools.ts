// get_labels and change_labels: the label endpoints (messages, threads, batch).
import { t } from "elysia";
import { errors } from "../core/errors.ts";
import { batchChangeLabels, changeThreadLabels, getMessageLabels, getThreadLabels, LABEL_LIMITS } from "../core/labels.ts";
import { strictObject } from "../request/models.ts";
import { defineTool } from "./tool.ts";

const RULES =
  "Labels are 1 to 64 characters of a-z, 0-9 and _ . : / - (case folded). `unread`: inbound mail you have not marked `read`; " +
  "adding `unread` removes `read`. `archived` is a label like any other (filter list_messages/list_threads with label=). A " +
  "thread is `read` or `archived` only while every message is, so a new message brings it back. Use labels to keep track of " +
  "what you have handled instead of re-reading the mailbox.";
const labels = (what: string) =>
  t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: LABEL_LIMITS.perChange, description: `labels to ${what}` }));

export const getLabelsTool = defineTool({
  name: "get_labels",
  title: "Read labels",
  description: `The labels of one message (message_id) or one thread (thread_id), as {labels: [...]}. ${RULES}`,
  input: strictObject({
    message_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "msg_..." })),
    thread_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "thr_..." })),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  endpointClass: "read",
  run: async ({ svc, principal }, args) => {
    if ((args.message_id === undefined) === (args.thread_id === undefined)) throw errors.validation("pass message_id or thread_id");
    const found = args.message_id
      ? await getMessageLabels(svc.sql, principal, args.message_id)
      : await getThreadLabels(svc.sql, principal, args.thread_id!);
    return { body: { labels: found } };
  },
});

export const changeLabelsTool = defineTool({
  name: "change_labels",
  title: "Add and remove labels",
  description:
    "Add and remove labels on one thread (thread_id: every message in it; returns {labels}) or on up to " +
    `${LABEL_LIMITS.batchMessages} messages (message_ids; returns {updated, not_found}: not_found ids are missing or not yours). ` +
    `E.g. mark handled mail with add ["read", "archived"]. ${RULES} At most 50 labels per message.`,
  input: strictObject({
    message_ids: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: LABEL_LIMITS.batchMessages })),
    thread_id: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    add: labels("add"),
    remove: labels("remove"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  endpointClass: "read",
  run: async ({ svc, principal }, { message_ids, thread_id, ...change }) => {
    if ((message_ids === undefined) === (thread_id === undefined)) throw errors.validation("pass message_ids or thread_id");
    if (thread_id) return { body: { labels: await changeThreadLabels(svc.sql, principal, thread_id, change) } };
    return { body: await batchChangeLabels(svc.sql, principal, { message_ids: message_ids!, ...change }) };
  },
});
