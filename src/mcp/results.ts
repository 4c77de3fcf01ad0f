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
  return `${REPLY_HEAD}${success.text},"content":${content}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** How both replies open: the body's JSON text follows. */
const REPLY_HEAD = '{"result":{"structuredContent":';

const encoder = new TextEncoder();
/** A reply that may need more than this (in UTF-8) is built as text; the shared buffer grows up to it. */
const MAX_BUILT_REPLY = 1024 * 1024;
let scratch = new Uint8Array(64 * 1024);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CONTENT_HEAD = ',"content":[{"type":"text","text":"';

/**
 * The bytes of successReplyJson's text in UTF-8, built in one shared buffer: the body's JSON text is
 * encoded once and its escaped copy (the text block) is made from those bytes, so no escaped
 * string, joined reply string or conversion of it is allocated per call. The escaping is
 * JSON.stringify's for this input: a JSON text holds no control character and no lone surrogate
 * (JSON.stringify escaped them), so only `"` and `\` are escaped, and neither byte occurs inside
 * a multi-byte UTF-8 sequence. Returns a view of the shared buffer, valid until the next call:
 * hand it at once to something that copies it (a Response does: the Fetch standard's body
 * extraction copies a BufferSource). A reply that may not fit is returned as successReplyJson's text.
 */
export function successReplyBytes(success: ToolSuccess, id: string | number): Uint8Array<ArrayBuffer> | string {
  const { text } = success;
  const tail =
    `"}${success.notes.map((note) => `,${JSON.stringify({ type: "text", text: note })}`).join("")}]},"jsonrpc":"2.0",` +
    `"id":${JSON.stringify(id)}}`;
  // UTF-8 takes at most 3 bytes per UTF-16 unit, and escaping at most doubles the copy.
  const bound = REPLY_HEAD.length + CONTENT_HEAD.length + 9 * text.length + 3 * tail.length;
  if (bound > MAX_BUILT_REPLY) return successReplyJson(success, id);
  if (bound > scratch.length) scratch = new Uint8Array(Math.min(MAX_BUILT_REPLY, 2 ** Math.ceil(Math.log2(bound))));
  let at = encoder.encodeInto(REPLY_HEAD, scratch).written;
  const bodyStart = at;
  at += encoder.encodeInto(text, scratch.subarray(at)).written;
  const bodyEnd = at;
  at += encoder.encodeInto(CONTENT_HEAD, scratch.subarray(at)).written;
  for (let i = bodyStart; i < bodyEnd; i++) {
    const byte = scratch[i]!;
    if (byte === QUOTE || byte === BACKSLASH) scratch[at++] = BACKSLASH;
    scratch[at++] = byte;
  }
  at += encoder.encodeInto(tail, scratch.subarray(at)).written;
  return scratch.subarray(0, at);
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
