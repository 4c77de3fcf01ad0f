// Tool results: a success carries the HTTP API's JSON body as structuredContent plus a text copy;
// a contract error (CoreError) becomes an isError result carrying {status, ...body}, so an agent
// sees exactly what the HTTP API would have answered. Nothing else ever leaves: no stack traces.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CoreError, errors } from "../core/errors.ts";
import type { StoredResponse } from "../core/outbound/index.ts";
import { answerOf } from "../request/error-answers.ts";

export type ToolBody = Record<string, unknown>;

/**
 * A send's answer as the HTTP route would give it: 2xx bodies pass through, and a stored 4xx
 * (a replayed 402 or permanent 400 for a client_id) is the error it was.
 */
export function storedOutcome(response: StoredResponse): ToolBody {
  if (response.status >= 400) throw errors.storedAnswer(response.status, response.body);
  return response.body;
}

/** A successful tool's answer before it becomes a result: the body's JSON text and the notes. */
export type ToolSuccess = { text: string; notes: string[] };

/** Serialized once, as the HTTP layer would: timestamps become the same strings. */
export function toolSuccessOf(body: ToolBody, notes: string[] = []): ToolSuccess {
  return { text: JSON.stringify(body), notes };
}

/** A successful tool result; `notes` are extra text blocks for the reader (e.g. screening). */
export function toolSuccess(body: ToolBody, notes: string[] = []): CallToolResult {
  return successResult(toolSuccessOf(body, notes));
}

export function successResult({ text, notes }: ToolSuccess): CallToolResult {
  // The parsed copy is also the cheaper one to serialize again in the reply: its timestamps are
  // strings already, where Dates would each be converted again.
  return { structuredContent: JSON.parse(text), content: successContent(text, notes) };
}

function successContent(text: string, notes: string[]): CallToolResult["content"] {
  return [{ type: "text", text }, ...notes.map((note) => ({ type: "text" as const, text: note }))];
}

/**
 * The JSON-RPC reply carrying a success, as the text JSON.stringify gives for
 * `{ result: successResult(success), jsonrpc: "2.0", id }`, written around the body's JSON text:
 * the body is not parsed back and serialized again (a JSON text re-serialized is the same text).
 */
export function successReplyJson(success: ToolSuccess, id: string | number): string {
  const content = JSON.stringify(successContent(success.text, success.notes));
  return `{"result":{"structuredContent":${success.text},"content":${content}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

function toolFailure(error: CoreError): CallToolResult {
  const answer = answerOf(error);
  const body = { status: answer.status, ...answer.body };
  return { isError: true, structuredContent: body, content: [{ type: "text", text: JSON.stringify(body) }] };
}

/** Any error a tool throws: ours as the contract says, anything else as the API's plain 500. */
export function toolError(error: unknown): { result: CallToolResult; unexpected: boolean } {
  if (error instanceof CoreError) return { result: toolFailure(error), unexpected: false };
  return { result: toolFailure(errors.internal()), unexpected: true };
}
