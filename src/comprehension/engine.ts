// One interface for comprehension, two engines behind it. The built-in engine needs nothing
// outside the process and is the default. The LLM engine asks an OpenAI-compatible chat
// endpoint for a structured answer and falls back to the built-in engine, marking the result
// `partial`, whenever that answer is late, malformed or does not validate.

import { type Classification, classifyMessage } from "./understanding/classify.ts";
import { type ComprehensionInput, extractFacts, type Facts } from "./understanding/extract.ts";
import { askLlm, type LlmOptions } from "./understanding/llm.ts";
import { fillSchema } from "./understanding/schema-fill.ts";

export type { Classification } from "./understanding/classify.ts";
export type { ComprehensionInput, Facts } from "./understanding/extract.ts";

export type ExtractionError = { missing_required?: string[]; message: string };

export type ComprehensionResult = {
  status: "complete" | "partial";
  classification: Classification | null;
  extraction: { facts: Facts; schema_fields?: Record<string, unknown> } | null;
  extraction_error: ExtractionError | null;
  confidence: number;
  engine: "builtin" | "llm";
};

export interface ComprehensionEngine {
  name: "builtin" | "llm";
  comprehend(input: ComprehensionInput): Promise<ComprehensionResult>;
}

function comprehendBuiltin(input: ComprehensionInput): ComprehensionResult {
  const facts = extractFacts(input);
  const classification = classifyMessage(input, facts);
  if (!input.schema) {
    return {
      status: "complete",
      classification,
      extraction: { facts },
      extraction_error: null,
      confidence: classification.confidence,
      engine: "builtin",
    };
  }
  const fill = fillSchema(input.schema, input, facts, classification.label);
  return {
    ...finish(fill.missing_required, fill.errors),
    classification,
    extraction: { facts, schema_fields: fill.values },
    confidence: classification.confidence,
    engine: "builtin",
  };
}

export const builtinEngine: ComprehensionEngine = {
  name: "builtin",
  comprehend: async (input) => comprehendBuiltin(input),
};

export type LlmEngineOptions = LlmOptions;

export function makeLlmEngine(options: LlmEngineOptions): ComprehensionEngine {
  return {
    name: "llm",
    async comprehend(input) {
      try {
        const answer = await askLlm(options, input);
        // The built-in facts are exact on the formats they know; the model's, already checked
        // against the text, add what they miss.
        const facts = mergeFacts(extractFacts(input), answer.facts);
        const classification: Classification = { label: answer.label, confidence: answer.confidence, signals: [`llm:${options.model}`] };
        const base = { classification, confidence: answer.confidence, engine: "llm" as const };
        if (!input.schema) return { ...base, status: "complete", extraction: { facts }, extraction_error: null };
        const fields = answer.schemaFields ?? { values: {}, missingRequired: [] };
        return { ...base, ...finish(fields.missingRequired, []), extraction: { facts, schema_fields: fields.values } };
      } catch (err) {
        const fallback = comprehendBuiltin(input);
        const missing = fallback.extraction_error?.missing_required;
        return {
          ...fallback,
          status: "partial",
          extraction_error: {
            ...(missing ? { missing_required: missing } : {}),
            message: `llm engine failed: ${reason(err, options.timeoutMs)}`,
          },
        };
      }
    },
  };
}

export function chooseEngine(config: {
  llmUrl: string | null;
  llmModel: string | null;
  llmApiKey: string | null;
  llmTimeoutMs: number;
}): ComprehensionEngine {
  if (!config.llmUrl || !config.llmModel) return builtinEngine;
  return makeLlmEngine({ url: config.llmUrl, model: config.llmModel, apiKey: config.llmApiKey, timeoutMs: config.llmTimeoutMs });
}

function finish(missing: string[], rejected: string[]): Pick<ComprehensionResult, "status" | "extraction_error"> {
  if (missing.length === 0) return { status: "complete", extraction_error: null };
  const detail = rejected.length ? `; rejected: ${rejected.join("; ")}` : "";
  return {
    status: "partial",
    extraction_error: { missing_required: missing, message: `required properties not found: ${missing.join(", ")}${detail}` },
  };
}

function mergeFacts(a: Facts, b: Facts): Facts {
  const strings = (x: string[], y: string[]) => [...new Set([...x, ...y])].slice(0, 20);
  const seenAmounts = new Set(a.amounts.map((m) => `${m.currency}:${m.value}`));
  const seenTracking = new Set(a.tracking_numbers.map((t) => t.number));
  return {
    verification_codes: strings(a.verification_codes, b.verification_codes),
    sign_in_links: strings(a.sign_in_links, b.sign_in_links),
    password_reset_links: strings(a.password_reset_links, b.password_reset_links),
    unsubscribe_links: strings(a.unsubscribe_links, b.unsubscribe_links),
    links: strings(a.links, b.links),
    dates: strings(a.dates, b.dates),
    amounts: [...a.amounts, ...b.amounts.filter((m) => !seenAmounts.has(`${m.currency}:${m.value}`))].slice(0, 20),
    order_numbers: strings(a.order_numbers, b.order_numbers),
    references: [...a.references, ...b.references.filter((r) => !a.references.some((x) => x.value === r.value))].slice(0, 20),
    tracking_numbers: [...a.tracking_numbers, ...b.tracking_numbers.filter((t) => !seenTracking.has(t.number))].slice(0, 20),
    phone_numbers: strings(a.phone_numbers, b.phone_numbers),
  };
}

function reason(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const message = err instanceof Error ? err.message : String(err);
  return message.slice(0, 300);
}
