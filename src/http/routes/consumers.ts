// Named consumers over polling: create (or look up), claim leased events, acknowledge them.
// Authorized like reading messages (can_read; a bound key uses its own mailbox's consumers only).
import { t } from "elysia";
import { ackEvents, claimEvents, getConsumer, MAX_EVENTS_PAGE, MAX_LEASE_SECONDS, openConsumer } from "../../core/events/index.ts";
import type { Services } from "../../core/services.ts";
import { authErrors, ErrorBody, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";
import { AnyEvent } from "./events.ts";

const Consumer = strictObject({
  name: t.String(),
  mailbox_id: t.Union([t.String(), t.Null()]),
  acked_through: t.String({ description: "every event at or before this cursor is acknowledged" }),
  created_at: t.String(),
});
const LeasedEvent = strictObject({
  cursor: t.String(),
  event: AnyEvent,
  lease_expires_at: t.String({ description: "unacknowledged by then, the event goes to the next claim" }),
  deliveries: t.Integer({ description: "how many times this event has been leased (1 the first time)" }),
});
const Name = t.Object({ name: t.String({ maxLength: 64 }) });
const notFound = { 404: ErrorBody };

export const consumerRoutes = (svc: Services) =>
  apiRoutes(svc, "consumers")
    .post(
      "/consumers",
      async ({ principal, body, set }) => {
        const { consumer, created } = await openConsumer(svc.sql, principal, { name: body.name, mailboxId: body.mailbox_id });
        set.status = created ? 201 : 200;
        return consumer;
      },
      {
        auth: "read",
        body: strictObject({ name: t.String({ minLength: 1, maxLength: 64 }), mailbox_id: t.Optional(t.String({ minLength: 1 })) }),
        response: { 200: Consumer, 201: Consumer, 400: ErrorBody, ...authErrors, ...notFound, 409: ErrorBody, 413: ErrorBody },
        detail: {
          summary: "Create or get a named consumer",
          description:
            "201 when created, 200 when it exists with the same mailbox scope (409 for another). A new " +
            "consumer starts at the oldest retained event. " +
            "Several readers of one consumer share its events: each event is leased to one reader until acknowledged or its lease runs out.",
        },
      },
    )
    .get("/consumers/:name", ({ principal, params }) => getConsumer(svc.sql, principal, params.name), {
      auth: "read",
      params: Name,
      response: { 200: Consumer, 400: ErrorBody, ...authErrors, ...notFound },
      detail: { summary: "Get a consumer" },
    })
    .post(
      "/consumers/:name/claim",
      async ({ principal, params, body }) => ({
        events: await claimEvents(svc.sql, principal, params.name, {
          limit: body.limit ?? 10,
          leaseSeconds: body.lease_seconds ?? svc.config.events.leaseSeconds,
        }),
      }),
      {
        auth: "read",
        params: Name,
        body: strictObject({
          limit: t.Optional(t.Integer({ minimum: 1, maximum: MAX_EVENTS_PAGE, description: "default 10" })),
          lease_seconds: t.Optional(t.Integer({ minimum: 1, maximum: MAX_LEASE_SECONDS, description: "default EVENT_LEASE_S (60)" })),
        }),
        response: { 200: strictObject({ events: t.Array(LeasedEvent) }), 400: ErrorBody, ...authErrors, ...notFound, 413: ErrorBody },
        detail: { summary: "Lease the next events of a consumer", description: "Oldest first; an empty list when nothing is free." },
      },
    )
    .post("/consumers/:name/ack", async ({ principal, params, body }) => ackEvents(svc.sql, principal, params.name, body.cursors), {
      auth: "read",
      params: Name,
      body: strictObject({ cursors: t.Array(t.String({ maxLength: 32 }), { minItems: 1, maxItems: MAX_EVENTS_PAGE }) }),
      response: {
        200: strictObject({ acked: t.Integer(), acked_through: t.String() }),
        400: ErrorBody,
        ...authErrors,
        ...notFound,
        413: ErrorBody,
      },
      detail: { summary: "Acknowledge leased events", description: "Idempotent; cursors not leased by this consumer are ignored." },
    });
