// What a core function's refusal answers at the edge: tests of core functions assert the answer a
// caller would get (status, body), through the same table the HTTP API, MCP and the dashboard use.
import { CoreError } from "../../src/core/errors.ts";
import { answerOf, type ErrorAnswer } from "../../src/request/error-answers.ts";

/** The answer of the CoreError `work` rejects with; fails when it resolves or throws anything else. */
export async function refusal(work: Promise<unknown>): Promise<ErrorAnswer> {
  try {
    await work;
  } catch (error) {
    if (error instanceof CoreError) return answerOf(error);
    throw error;
  }
  throw new Error("expected a refusal, got a result");
}
