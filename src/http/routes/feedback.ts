// POST and DELETE /api/v1/messages/{id}/feedback: correcting a message's verdicts (an addition
// to the contract, docs/api.md; src/core/screening/feedback.ts says what each verdict does and what the account learns).
import { t } from "elysia";
import { type FeedbackAxis, giveFeedback, undoFeedback } from "../../core/screening/index.ts";
import type { Services } from "../../core/services.ts";
import { authErrors, ErrorBody, nullable, PathId, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";

const Verdict = t.Union(
  [t.Literal("spam"), t.Literal("not_spam"), t.Literal("injection"), t.Literal("safe"), t.Literal("fraud"), t.Literal("genuine")],
  {
    description:
      "`spam` / `not_spam` (the account's spam statistics learn from it), `injection` / `safe` (recorded), " +
      "`fraud` / `genuine` (about the sender: later mail from it is flagged, or counted as a known correspondent)",
  },
);
const Axis = t.Union([t.Literal("spam"), t.Literal("injection"), t.Literal("fraud")]);

export const Feedback = strictObject({
  id: t.String(),
  message_id: t.String(),
  verdict: Verdict,
  axis: Axis,
  trained: nullable(t.Union([t.Literal("spam"), t.Literal("ham")], { description: "what the account's spam statistics counted it as" })),
  created_at: t.String(),
});

const FeedbackAnswer = strictObject({
  feedback: Feedback,
  replaced: nullable(Verdict),
});

const Id = t.Object({ id: PathId });

export const feedbackRoutes = (svc: Services) =>
  apiRoutes(svc, "feedback")
    .post(
      "/messages/:id/feedback",
      async ({ principal, params, body, set }) => {
        const outcome = await giveFeedback(svc.sql, principal, params.id, body.verdict, { source: "api", actor: principal.keyId });
        set.status = outcome.created ? 201 : 200;
        return { feedback: outcome.feedback, replaced: outcome.replaced };
      },
      {
        auth: "read",
        params: Id,
        body: strictObject({ verdict: Verdict }),
        response: { 200: FeedbackAnswer, 201: FeedbackAnswer, 400: ErrorBody, ...authErrors, 404: ErrorBody, 413: ErrorBody },
        detail: {
          summary: "Correct a message's verdict",
          description:
            "Requires `can_read`; a bound key only for its own mailbox. 201 when recorded; 200 when the same verdict was " +
            "already standing (nothing changes). A message holds one standing verdict per axis (spam, injection, fraud): the " +
            "other verdict of the axis replaces it (`replaced` names it) and undoes what it taught. `spam` and `not_spam` train " +
            "the account's own statistics, applied to its later mail on top of the global model; other accounts are unaffected. " +
            "The message's own stored verdicts do not change. 400 for outbound mail; 404 `message not found` as for GET /messages/{id}.",
        },
      },
    )
    .delete(
      "/messages/:id/feedback",
      async ({ principal, params, query }) => {
        const axis = (query.axis ?? null) as FeedbackAxis | null;
        return { undone: await undoFeedback(svc.sql, principal, params.id, axis, principal.keyId) };
      },
      {
        auth: "read",
        params: Id,
        query: strictObject({ axis: t.Optional(Axis) }),
        response: { 200: strictObject({ undone: t.Array(Feedback) }), 400: ErrorBody, ...authErrors, 404: ErrorBody },
        detail: {
          summary: "Undo a message's corrections",
          description:
            "Undoes the standing verdict of `axis` (every axis when omitted) and removes what it taught the account's " +
            "statistics. `undone` lists them (empty when there was none). Same authorization and 404 as POST.",
        },
      },
    );
