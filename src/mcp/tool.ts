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

export type Tool<S extends TSchema = TSchema> = {
  name: string;
  title: string;
  description: string;
  input: S;
  annotations: ToolAnnotations;
  /** the class of the HTTP route this tool stands for: same scopes, bound-key rule and capability */
  endpointClass: EndpointClass;
  run(ctx: ToolContext, args: Static<S>): Promise<ToolOutput>;
};

export type CompiledTool = Tool & { validate(args: unknown): unknown };

export function defineTool<S extends TSchema>(tool: Tool<S>): CompiledTool {
  const check = TypeCompiler.Compile(tool.input);
  return {
    ...(tool as unknown as Tool),
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
