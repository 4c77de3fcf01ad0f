// What every answer must be, whatever was asked: never a 500 and never a hang; a status the
// OpenAPI document lists for the operation; JSON that matches the document's schema for that
// status (the contract's error shape for every 4xx).
import Ajv2020 from "ajv/dist/2020";
import type { FuzzRequest, Operation } from "./openapi-requests.ts";

/** No request may take longer than this (the probe saw none over 5 s). */
export const HANG_MS = 10_000;

/**
 * Past this many bytes of request line and headers, Bun's HTTP server itself answers 431 (no
 * body) before the app sees the request: a transport limit, not an answer of the contract.
 */
export const SERVER_HEAD_LIMIT = 16 * 1024;

export type Answer = { status: number; contentType: string; text: string; elapsedMs: number };

export async function send(base: string, request: FuzzRequest): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${base}${request.target}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(HANG_MS),
  });
  const contentType = response.headers.get("content-type") ?? "";
  // A stream (server-sent events) never ends by itself: its status and headers are the answer.
  if (contentType.startsWith("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, contentType, text: "", elapsedMs: performance.now() - started };
  }
  const text = await response.text();
  return { status: response.status, contentType, text, elapsedMs: performance.now() - started };
}

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

export function makeContractChecker(doc: Record<string, any>) {
  const ajv = new Ajv2020({ allErrors: false, strict: false, validateFormats: false });
  ajv.addSchema(doc, "openapi");
  const validators = new Map<string, ReturnType<typeof ajv.compile> | null>();

  function validatorFor(operation: Operation, status: string) {
    const key = `${operation.method} ${operation.path} ${status}`;
    if (!validators.has(key)) {
      const schema = operation.op.responses?.[status]?.content?.["application/json"]?.schema;
      validators.set(
        key,
        schema
          ? ajv.compile({
              $ref: `openapi#/${pointer("paths", operation.path, operation.method.toLowerCase(), "responses", status, "content", "application/json", "schema")}`,
            })
          : null,
      );
    }
    return validators.get(key)!;
  }

  /** The reasons this answer breaks the contract; empty when it keeps it. */
  return function problems(operation: Operation, answer: Answer, request?: FuzzRequest): string[] {
    const found: string[] = [];
    const head = request
      ? request.target.length + Object.entries(request.headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0)
      : 0;
    if (head > SERVER_HEAD_LIMIT / 2 && (answer.status === 431 || answer.status === 414)) return answer.elapsedMs > HANG_MS ? ["hang"] : [];
    const documented = Object.keys(operation.op.responses ?? {});
    const status = String(answer.status);
    if (answer.elapsedMs > HANG_MS) found.push(`took ${Math.round(answer.elapsedMs)} ms`);
    if (answer.status === 500) found.push("500");
    if (!documented.includes(status)) found.push(`status ${status} is not documented (documented: ${documented.join(", ")})`);
    if (answer.status === 204) {
      if (answer.text !== "") found.push("204 with a body");
      return found;
    }
    const content = operation.op.responses?.[status]?.content ?? {};
    const jsonExpected = answer.status >= 400 || "application/json" in content;
    if (!jsonExpected) return found;
    if (!answer.contentType.startsWith("application/json")) found.push(`content-type ${JSON.stringify(answer.contentType)}`);
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      found.push(`body is not JSON: ${answer.text.slice(0, 200)}`);
      return found;
    }
    if (answer.status >= 400 && (typeof body !== "object" || body === null || Array.isArray(body)))
      found.push("error body is not an object");
    const validate = documented.includes(status) ? validatorFor(operation, status) : null;
    if (validate && !validate(body))
      found.push(
        `body does not match the documented ${status} schema: ${ajv.errorsText(validate.errors)}; body ${answer.text.slice(0, 300)}`,
      );
    if (/\s+at .*\.(ts|js):\d+/.test(answer.text)) found.push("body carries a stack trace");
    return found;
  };
}
