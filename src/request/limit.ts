// A list endpoint's `limit`, shared by the HTTP routes and the MCP tools so both clamp alike.

/** Clamps an optional `limit` query value: the fallback when absent, then 1..max. */
export function clampLimit(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  return Math.min(Math.max(1, Math.floor(value)), max);
}
