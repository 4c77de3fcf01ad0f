// The base every resource's route plugin starts from: the /api/v1 prefix and the `auth` macro
// through which a route declares its endpoint class (see auth.ts).
import { Elysia } from "elysia";
import { errors } from "../core/errors.ts";
import type { Services } from "../core/services.ts";
import { type EndpointClass, makeRequestAuthorizer } from "../request/auth.ts";
import { MAX_JSON_DEPTH, nestingDepth, readBodyBytesWithin, readBodyWithin, uploadByteLimit } from "../request/body-limits.ts";
import { rateLimiterFor } from "../request/rate-limit.ts";
import type { RateLimitFields } from "../request/rate-limit-fields.ts";
import { normalizeRequestIdentifiers, unstorableTextIn } from "../request/text-input.ts";

export function apiRoutes(svc: Services, name: string) {
  const limiter = rateLimiterFor(svc);
  // The RateLimit fields of each admitted request, added to its answer by the resolve hook.
  const limits = new WeakMap<Request, RateLimitFields>();
  const record = (request: Request, fields: RateLimitFields | null) => {
    if (fields) limits.set(request, fields);
  };
  const decide = makeRequestAuthorizer(svc.sql, (principal, request) => {
    const fields = limiter.take(principal.keyId);
    return fields instanceof Promise ? fields.then((f) => record(request, f)) : record(request, fields);
  });
  return (
    new Elysia({ name: `routes:${name}`, prefix: "/api/v1" })
      // Every route here declares its endpoint class through this macro, so its hooks are the
      // whole per-request chain of the API: one hook per lifecycle stage, each naming the context
      // fields it reads (Elysia compiles a route from what its hooks read: a hook taking the whole
      // context would make every request parse its cookies and copy its headers).
      .macro({
        auth: (spec: EndpointClass | UploadRoute) => {
          const endpointClass = typeof spec === "string" ? spec : spec.endpoint;
          const upload = typeof spec !== "string";
          return {
            // parse runs before the body is read, transform before validation: a bad key is always
            // reported before a bad body, whichever hook a route has.
            async parse({ request }: { request: Request }) {
              await decide(request, endpointClass);
              if (upload) return parseUpload(request, uploadByteLimit(svc.config));
              return parseJsonBody(request, svc.config.maxRequestBytes);
            },
            async transform({ request, params, query }: TransformContext) {
              // Before validation: an id no client was given is an unknown id, not a 400 or a 500.
              normalizeRequestIdentifiers({ params, query });
              await decide(request, endpointClass);
              assertDecimalLimit(request.url);
            },
            async resolve({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) {
              const principal = await decide(request, endpointClass);
              const fields = limits.get(request);
              if (fields) Object.assign(set.headers, fields);
              return { principal };
            },
          };
        },
      })
  );
}

/** A route whose body is a file upload (multipart/form-data) rather than a JSON object. */
export type UploadRoute = { endpoint: EndpointClass; upload: true };

/** An uploaded file: the multipart field `file`, with the filename and content type its part declares. */
export type Upload = { file: { filename: string; contentType: string; content: Uint8Array } | null };

/** multipart/form-data only, within the upload limit; the field `file` (null when absent). */
async function parseUpload(request: Request, maxBytes: number): Promise<Upload> {
  const type = request.headers.get("content-type") ?? "";
  // Another declared type is 415, as a JSON route answers a form.
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw errors.multipartRequired();
  }
  const bytes = await readBodyBytesWithin(request, maxBytes);
  if (bytes === null) throw errors.bodyTooLarge();
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } }).formData();
  } catch {
    throw errors.validation("the multipart/form-data body could not be read");
  }
  const files = form.getAll("file");
  if (files.length > 1) throw errors.validation("send one file per request");
  const file = files[0];
  if (file === undefined) return { file: null };
  if (typeof file === "string") throw errors.validation("the field `file` must be a file part (with a filename)");
  return { file: { filename: file.name, contentType: file.type, content: new Uint8Array(await file.arrayBuffer()) } };
}

type TransformContext = { request: Request; params?: Record<string, unknown>; query?: Record<string, unknown> };

/** application/json or a +json type, with any parameters (charset). */
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Every body is a JSON object. An empty body reads as `{}` (so optional bodies may be omitted);
 * anything else that is not an object is 400, never dropped. A non-empty body sent under another
 * declared type (a form, text/plain) is 415; no Content-Type at all is read as JSON.
 */
async function parseJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get("content-type");
  const text = await readBodyWithin(request, maxBytes);
  if (text === null) throw errors.bodyTooLarge();
  if (text.trim() === "") return {};
  if (type !== null && !JSON_TYPE.test(type)) throw errors.unsupportedMediaType();
  if (nestingDepth(text) > MAX_JSON_DEPTH) throw errors.validation(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.malformedJson();
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw errors.validation("request body must be a JSON object");
  const unstorable = unstorableTextIn(value);
  if (unstorable) throw errors.validation(unstorable);
  return value;
}

// The schema coerces `limit` with Number(), which also reads "0x10", " 7" and "1e2"; only
// plain decimal digits are an integer a client meant.
function assertDecimalLimit(url: string): void {
  if (!url.includes("?")) return; // no query: nothing to check, and no URL to parse
  const raw = new URL(url).searchParams.getAll("limit");
  if (raw.some((value) => !/^[0-9]+$/.test(value))) throw errors.validation("limit must be an integer >= 1");
}
