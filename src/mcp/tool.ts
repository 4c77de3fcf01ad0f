// What a tool is: a name and description for an LLM reader, a TypeBox input schema (served as the
// tool's JSON Schema and checked before anything runs), the HTTP endpoint class whose
// authorization it shares, and a run function that calls the same core function as that route.
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Static, TSchema } from "elysia";
import { TypeCompiler } from "elysia/type-system";
import { errors } from "../core/errors.ts";
import type { Principal } from "../core/principal.ts";
import type { Services } from "../core/services.ts";
import type { EndpointClass } from "../request/auth.ts";
import { unstorableTextIn } from "../request/text-input.ts";
import { describeValidationFailure } from "../request/validation.ts";
import type { ToolBody } from "./results.ts";

export type ToolContext = { svc: Services; principal: Principal };
export type ToolOutput = { body: ToolBody; notes?: string[] };

/** Every tool states all four hints: a client deciding whether to ask its user first needs each one. */
export type ToolHints = Required<Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">>;

export type Tool<S extends TSchema = TSchema> = {
  name: string;
  title: string;
  description: string;
  input: S;
  annotations: ToolHints;
  /** the class of the HTTP route this tool stands for: same scopes, bound-key rule and capability */
  endpointClass: EndpointClass;
  run(ctx: ToolContext, args: Static<S>): Promise<ToolOutput>;
};

export type CompiledTool = Tool & { validate(args: unknown): unknown };

/**
 * What every error means for the agent's next step, appended to every tool's description: the
 * tool-specific outcomes are in each description, these are common to all.
 */
export const ERROR_GUIDE =
  "Errors come back as a result {status, error, code}, the HTTP API's answer: 400 fix the arguments as the error says; " +
  "401 the key is missing or revoked and 403 key_scope this key may not do this (ask a human, do not retry); 404 the id does not " +
  "exist or is not visible to this key; 429 too many requests, wait the seconds it says and retry; 5xx a fault of the service, " +
  "retry later.";

export function defineTool<S extends TSchema>(tool: Tool<S>): CompiledTool {
  const check = TypeCompiler.Compile(tool.input);
  return {
    ...(tool as unknown as Tool),
    description: `${tool.description} ${ERROR_GUIDE}`,
    validate(args: unknown) {
      const value = args ?? {};
      // Arguments are a JSON body: refused as the HTTP API refuses text Postgres cannot hold.
      const unstorable = unstorableTextIn(value);
      if (unstorable) throw errors.validation(unstorable);
      if (!check.Check(value)) throw errors.validation(describeValidationFailure({ all: [...check.Errors(value)], type: "body" }));
      return value;
    },
  };
}

/** The tool's input schema as plain JSON Schema (TypeBox's symbol markers dropped). */
export function jsonSchemaOf(tool: Tool): { type: "object"; [key: string]: unknown } {
  return JSON.parse(JSON.stringify(tool.input));
}
