// `npm run bench -- <name> [args…]`: runs the benchmark in bench/<name>.ts (its default export).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const available = readdirSync(import.meta.dir)
  // stream-service.ts is the stream benchmarks' shared set-up, not one to run.
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && file !== "run.ts" && file !== "stream-service.ts")
  .map((file) => file.replace(/\.ts$/, ""))
  .sort();

const [name, ...args] = process.argv.slice(2);
// Only plain names: the argument picks a file in this directory and nothing else.
if (!name || !/^[a-z0-9-]+$/.test(name) || !existsSync(join(import.meta.dir, `${name}.ts`))) {
  console.error(`usage: npm run bench -- <name> [args]\navailable: ${available.join(", ")}`);
  process.exit(2);
}

const bench = (await import(join(import.meta.dir, `${name}.ts`))) as { default?: (args: string[]) => Promise<void> };
if (typeof bench.default !== "function") {
  console.error(`bench/${name}.ts has no default export to run`);
  process.exit(2);
}
await bench.default(args);
process.exit(0);
