// POST /api/v1/messages/{id}/rsvp.
import { t } from "elysia";
import { rsvpToMessage } from "../../core/outbound/index.ts";
import type { Services } from "../../core/services.ts";
import { PathId, strictObject } from "../../request/models.ts";
import { clientId, sendAnswers } from "../../request/outgoing-models.ts";
import { answerOfOutcome } from "../../request/send-answers.ts";
import { apiRoutes } from "../route-kit.ts";

export const rsvpRoutes = (svc: Services) =>
  apiRoutes(svc, "rsvp").post(
    "/messages/:id/rsvp",
    async ({ principal, params, body, set }) => {
      const response = answerOfOutcome(await rsvpToMessage(svc, principal, params.id, body));
      set.status = response.status;
      return response.body as never;
    },
    {
      auth: "write",
      params: t.Object({ id: PathId }),
      body: strictObject({
        response: t.Union([t.Literal("accepted"), t.Literal("declined"), t.Literal("tentative")]),
        comment: t.Optional(t.String({ minLength: 1, maxLength: 1000, description: "one line for the organizer (iCalendar COMMENT)" })),
        client_id: clientId("idempotency key, as for send; must not start with `draft:`"),
      }),
      response: sendAnswers("RSVP"),
      detail: {
        summary: "Answer a calendar invitation",
        description:
          "Sends an iMIP REPLY (RFC 6047: text/calendar; method=REPLY beside a one-line text) with the mailbox's PARTSTAT " +
          "(ACCEPTED, DECLINED or TENTATIVE) and the event's UID, SEQUENCE and RECURRENCE-ID to the invitation's ORGANIZER, in the " +
          "invitation's thread. The message must be received mail carrying a METHOD:REQUEST calendar part, inline or as an .ics " +
          "file (its reading is in comprehension.calendar), else 400. Checks and answers are POST /send's, idempotency included; " +
          "a reply held for approval (202) carries the REPLY as reply.ics. 404 `message not found` as for GET /messages/{id}.",
      },
    },
  );
