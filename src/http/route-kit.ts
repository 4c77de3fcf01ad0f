// The base every resource's route plugin starts from: the /api/v1 prefix and the `auth` macro
// through which a route declares its endpoint class (see auth.ts).
import { Elysia } from "elysia";
import { errors } from "../core/errors.ts";
import type { Services } from "../core/services.ts";
import { makeRequestAuthorizer, type EndpointClass } from "./auth.ts";

export function apiRoutes(svc: Services, name: string) {
  const decide = makeRequestAuthorizer(svc.sql);
  return new Elysia({ name: `routes:${name}`, prefix: "/api/v1" }).macro({
    auth: (endpointClass: EndpointClass) => ({
      // parse runs before the body is read, transform before validation: a bad key is always
      // reported before a bad body, whichever hook a route has.
      async parse({ request }: { request: Request }) {
        await decide(request, endpointClass);
        return parseJsonBody(request);
      },
      async transform({ request }: { request: Request }) {
        await decide(request, endpointClass);
      },
      async resolve({ request }: { request: Request }) {
        return { principal: await decide(request, endpointClass) };
      },
    }),
  });
}

/**
 * Every body is JSON, whatever the content type says. An empty body reads as `{}` (so optional
 * bodies may be omitted); anything unparsable is 400, never silently dropped.
 */
async function parseJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw errors.malformedJson();
  }
}

/** Clamps an optional `limit` query value the way SPEC describes for messages. */
export function clampLimit(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  return Math.min(Math.max(1, Math.floor(value)), max);
}
