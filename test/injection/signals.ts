// Runs the rule stage alone over one text and returns each signal's weight by name: what the
// per-family tests compare with the entries of src/comprehension/injection/weights.ts.
import { type Origin, type Signal, scanText } from "../../src/comprehension/injection/scan.ts";

export function signals(text: string, origin: Origin = "body"): Map<string, number> {
  const out: Signal[] = [];
  scanText(text, origin, out);
  const byName = new Map<string, number>();
  for (const s of out) byName.set(s.name, Math.max(byName.get(s.name) ?? 0, s.weight));
  return byName;
}
