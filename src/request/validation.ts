// Turns Elysia/TypeBox validation failures into the contract's 400 `{error}` naming field and rule.

type ValueError = { path: string; message: string; schema?: Record<string, unknown>; value?: unknown };

export function describeValidationFailure(error: unknown): string {
  const all: ValueError[] = (error as { all?: ValueError[] }).all ?? [];
  const first = pickMostUseful(all);
  if (!first) return "request is invalid";
  const where = ["query", "property"].includes(String((error as { type?: string }).type)) ? "query parameter" : "field";
  // Elysia checks a coerced query value on its own, without its name: routes give such schemas a title.
  const field = first.path.replace(/^\//, "").replace(/\//g, ".") || String(first.schema?.title ?? "");
  if (first.message === "Unexpected property") return `unknown ${where} '${field}'`;
  if (first.message.startsWith("Expected required property")) return `${field} is required`;
  if (!field) return "request body must be a JSON object";
  const schema = numericMember(first.schema ?? {});
  if (typeof schema.pattern === "string" && /match/i.test(first.message)) {
    return typeof schema.errorMessage === "string" ? `${field} ${schema.errorMessage}` : `${field} must match ${schema.pattern}`;
  }
  if (schema.type === "string" && typeof schema.minLength === "number" && typeof first.value === "string") {
    if (typeof schema.maxLength === "number") return `${field} must be ${schema.minLength} to ${schema.maxLength} characters`;
    return `${field} must be at least ${schema.minLength} character${schema.minLength === 1 ? "" : "s"}`;
  }
  if (schema.type === "string" && typeof schema.maxLength === "number" && typeof first.value === "string") {
    return `${field} must be at most ${schema.maxLength} characters`;
  }
  if (schema.type === "integer" || schema.type === "number") {
    const min = typeof schema.minimum === "number" ? ` >= ${schema.minimum}` : "";
    return `${field} must be an integer${min}`;
  }
  if (typeof schema.type === "string") return `${field} must be a ${schema.type}`;
  return `${field}: ${first.message.toLowerCase()}`;
}

// An unknown or missing field says more than the type errors a union reports alongside it.
function pickMostUseful(all: ValueError[]): ValueError | undefined {
  return (
    all.find((e) => e.message === "Unexpected property") ??
    all.find((e) => e.message.startsWith("Expected required property")) ??
    all.find((e) => e.path !== "" && e.path !== "/") ??
    all[0]
  );
}

// Elysia accepts numeric query strings through a union of string and integer; report the integer.
function numericMember(schema: Record<string, unknown>): Record<string, unknown> {
  const members = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  return members?.find((member) => member.type === "integer" || member.type === "number") ?? schema;
}
