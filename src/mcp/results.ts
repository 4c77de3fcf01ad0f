// Tool results: a success carries the HTTP API's JSON body as structuredContent plus a text copy;
// a contract error (CoreError) or a send that failed becomes an isError result carrying
// {status, ...body}, so an agent sees exactly what the HTTP API would have answered. Nothing else
// ever leaves: no stack traces.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CoreError, errors } from "../core/errors.ts";
import type { SendOutcome } from "../core/outbound/index.ts";
import { answerOf } from "../request/error-answers.ts";
import { answerOfOutcome, type SendAnswer } from "../request/send-answers.ts";

export type ToolBody = Record<string, unknown>;

/** A send that failed (refused, not delivered, a replayed quota refusal): its answer is the tool's error. */
class FailedSend extends Error {
  constructor(readonly answer: SendAnswer) {
    super("send failed");
  }
}

/** A send's outcome as the HTTP route would answer it: a success is its body, a failure the error it answers. */
export function sendResult(outcome: SendOutcome): ToolBody {
  const answer = answerOfOutcome(outcome);
  if (answer.status >= 400) throw new FailedSend(answer);
  return answer.body;
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

function toolFailure(answer: { status: number; body: Record<string, unknown> }): CallToolResult {
  const body = { status: answer.status, ...answer.body };
  return { isError: true, structuredContent: body, content: [{ type: "text", text: JSON.stringify(body) }] };
}

/** Any error a tool throws: ours as the contract says, anything else as the API's plain 500. */
export function toolError(error: unknown): { result: CallToolResult; unexpected: boolean } {
  if (error instanceof CoreError) return { result: toolFailure(answerOf(error)), unexpected: false };
  if (error instanceof FailedSend) return { result: toolFailure(error.answer), unexpected: false };
  return { result: toolFailure(answerOf(errors.internal())), unexpected: true };
}
