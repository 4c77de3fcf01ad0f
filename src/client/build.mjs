// Builds @agent-mailbox/client into dist/: JavaScript (ES modules) and .d.ts from the TypeScript
// beside this file, with the generated API types (schema.d.ts) and the webhook verifier it imports
// from src/core. Run by `npm run client:build` at the top level, and by `npm pack` here (prepack).
// The output is not committed: it is generated from the routes twice over (schema.d.ts, then this),
// and test/http/client.package.test.ts builds it and checks it from Node, Deno and tsc.
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
rmSync(dist, { recursive: true, force: true });

const require = createRequire(import.meta.url);
const typescript = dirname(require.resolve("typescript/package.json"));
const tscBin = JSON.parse(readFileSync(join(typescript, "package.json"), "utf8")).bin.tsc;
execFileSync(process.execPath, [join(typescript, tscBin), "-p", join(here, "tsconfig.build.json")], { stdio: "inherit" });
copyFileSync(join(here, "schema.d.ts"), join(dist, "client", "schema.d.ts"));

// tsc rewrites "./x.ts" to "./x.js" in JavaScript, not in declarations: a consumer under nodenext
// resolution needs the .js form there too.
function declarations(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? declarations(path) : path.endsWith(".d.ts") ? [path] : [];
  });
}
for (const file of declarations(dist)) {
  const text = readFileSync(file, "utf8");
  const fixed = text.replace(/(from\s+["'])(\.{1,2}\/[^"']+)\.ts(["'])/g, "$1$2.js$3").replace(/(import\(["'])(\.{1,2}\/[^"']+)\.ts(["']\))/g, "$1$2.js$3");
  if (fixed !== text) writeFileSync(file, fixed);
}
console.log(`built ${dist}`);
