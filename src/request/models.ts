// TypeBox models shared by several routes: the error bodies of the contract (docs/api.md, "Errors").
import { t } from "elysia";
import { RATE_LIMITED } from "./rate-limit-fields.ts";

export const ErrorBody = t.Object({ error: t.String() }, { additionalProperties: false, description: "basic error" });
const KeyScopeError = t.Object(
  { error: t.String(), code: t.Literal("key_scope") },
  {
    additionalProperties: false,
    description: "the key lacks a capability, is bound to another mailbox, or is bound on an account-plane route",
  },
);
const ForbiddenError = t.Union([KeyScopeError, ErrorBody], { description: "key_scope, scope not permitted, or plan entitlement" });
export const ConflictError = t.Object({ code: t.String(), error: t.String() }, { additionalProperties: false });

/** A path id: any id that is not the caller's is the one 404, whatever its length or shape, never a 400. */
export const PathId = t.String();

/** The error statuses every authenticated route can answer (429: its key's rate limit, rate-limit.ts). */
export const authErrors = {
  401: t.Object({ error: t.String() }, { description: "missing bearer token, or invalid api key" }),
  403: ForbiddenError,
  429: t.Object(
    { error: t.Literal(RATE_LIMITED) },
    { additionalProperties: false, description: "the key is past its rate limit: retry after Retry-After seconds" },
  ),
};

export const strictObject = <T extends Parameters<typeof t.Object>[0]>(properties: T, description?: string) =>
  t.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

/** The schema, or null. */
export const nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
