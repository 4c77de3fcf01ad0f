// Samples of a `bun --cpu-prof` profile counted per function: self (the function was on top) and
// total (it was anywhere on the stack, counted once per sample), as shares of all samples. Bun's
// --cpu-prof-md table weighs by the time between samples, which charges an idle gap to whatever
// ran last; counting samples does not.
//
//   npx bun bench/support/cpuprofile-summary.ts FILE.cpuprofile [--top N]
import { readFileSync } from "node:fs";

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; startTime: number; endTime: number };

const [file, flag, value] = process.argv.slice(2);
if (!file || (flag !== undefined && (flag !== "--top" || !/^\d+$/.test(value ?? "")))) {
  throw new Error("usage: npx bun bench/support/cpuprofile-summary.ts FILE.cpuprofile [--top N]");
}
const top = flag ? Number(value) : 40;
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const nameOf = (node: Node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*node_modules\//, "").replace(`file://${process.cwd()}/`, "");
  return `${functionName || "(anonymous)"} ${where}${lineNumber >= 0 ? `:${lineNumber}` : ""}`;
};

const perNode = new Map<number, number>();
for (const id of profile.samples) perNode.set(id, (perNode.get(id) ?? 0) + 1);
const self = new Map<string, number>();
const total = new Map<string, number>();
for (const [id, count] of perNode) {
  const name = nameOf(byId.get(id)!);
  self.set(name, (self.get(name) ?? 0) + count);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frame = nameOf(byId.get(at)!);
    if (seen.has(frame)) continue;
    seen.add(frame);
    total.set(frame, (total.get(frame) ?? 0) + count);
  }
}

const samples = profile.samples.length;
console.log(`${samples} samples over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`);
for (const [title, counts] of [
  ["self", self],
  ["total", total],
] as const) {
  console.log(`\n${title}: share of samples, samples, function`);
  for (const [name, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * count) / samples).toFixed(1).padStart(6)}%  ${String(count).padStart(7)}  ${name}`);
  }
}
