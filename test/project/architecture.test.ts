// The import graph of src/, smtp/ and worker/: every import points down the layers below,
// and no file reaches itself through its imports. Read off the source with a regex (static
// `import`/`export ... from` and `import("...")`, type-only imports included: a type cycle
// still ties two files together for a reader).
//
// Layers, lowest first. Requests flow routes → core → Postgres and core → transports → the
// world; the transport contract (core/transport.ts) belongs to core, which calls it, so the
// transports in delivery/ sit above core and are chosen by the entry points:
//
//   0 base            src/*.ts helpers (config, log, db, ip-address, html-escape, secrets,
//                     metrics): no project imports but each other
//   1 mail            MIME, sanitization, DKIM keys, DNS
//   2 comprehension   scanners/, spam/, injection/, sender-risk/, learning/, understanding/:
//                     siblings that read mail,
//                     composed by comprehension/engine.ts (2.5)
//   3 core            the use cases; owns the transport contract (core/transport.ts)
//   4 delivery        the transports that implement core's contract
//   5 request         what every surface reads off a request: auth, body limits, models
//   6 surfaces        mcp, dashboard, smtp, worker, client: each imports only layers below,
//                     never another surface
//   7 http            the HTTP app, which mounts mcp and dashboard
//   8 entry points    src/main.ts, src/cli.ts: choose the transport and start the roles
//
// An import may go to a lower layer or stay inside its own group; anything else fails here.
//
// Inside core, a folder with an index.ts is a feature module (events/, webhooks/, accounts/...):
// code outside the folder imports its index.ts and nothing past it, so a module's front lists all
// it offers. Tests and scripts may still reach a module's parts (they are not checked here).

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");
const ENTRY_POINTS = new Set(["main", "cli"]);
const SURFACES = new Set(["mcp", "dashboard", "client"]);

type Group = { name: string; rank: number };

function groupOf(file: string): Group {
  const parts = file.split("/");
  if (parts[0] === "smtp" || parts[0] === "worker") return { name: parts[0], rank: 6 };
  if (parts[0] !== "src") throw new Error(`outside the checked folders: ${file}`);
  if (parts.length === 2) {
    const stem = parts[1].replace(/\.ts$/, "");
    return ENTRY_POINTS.has(stem) ? { name: stem, rank: 8 } : { name: "base", rank: 0 };
  }
  const folder = parts[1];
  if (folder === "mail") return { name: folder, rank: 1 };
  // The four parts are siblings; engine.ts, beside them, composes them.
  if (folder === "comprehension") return parts.length > 3 ? { name: `comprehension/${parts[2]}`, rank: 2 } : { name: folder, rank: 2.5 };
  if (folder === "core") return { name: folder, rank: 3 };
  if (folder === "delivery") return { name: folder, rank: 4 };
  if (folder === "request") return { name: folder, rank: 5 };
  if (SURFACES.has(folder)) return { name: folder, rank: 6 };
  if (folder === "http") return { name: folder, rank: 7 };
  throw new Error(`src/${folder}/ has no layer: add it to test/project/architecture.test.ts`);
}

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith(".ts")) out.push(path);
    }
  };
  for (const dir of ["src", "smtp", "worker"]) walk(dir);
  return out.sort();
}

const IMPORT =
  /(?:^|[\s;}])(?:import|export)\s[^"';]*?\sfrom\s*["'](\.{1,2}\/[^"']+)["']|(?:^|[\s;}])import\s*["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** Relative imports of one file's text, as repository paths; comments are left out. */
export function importsOf(file: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
  const out: string[] = [];
  for (const m of code.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    out.push(relative(ROOT, resolve(ROOT, dirname(file), spec)));
  }
  return out;
}

function graph(): Map<string, string[]> {
  const files = sourceFiles();
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(file, readFileSync(join(ROOT, file), "utf8")).filter((t) => known.has(t));
    edges.set(file, [...new Set(targets)]);
  }
  return edges;
}

/** Strongly connected components with more than one file, or a file importing itself. */
function cycles(edges: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

function upwardImports(edges: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [from, targets] of edges) {
    const a = groupOf(from);
    for (const to of targets) {
      const b = groupOf(to);
      if (a.name !== b.name && b.rank >= a.rank) bad.push(`${from} (${a.name}) imports ${to} (${b.name})`);
    }
  }
  return bad.sort();
}

/** The feature modules: folders under src/core with an index.ts front. */
function moduleFolders(files: Iterable<string>): string[] {
  return [...files].filter((f) => /^src\/core\/.+\/index\.ts$/.test(f)).map((f) => f.slice(0, -"/index.ts".length));
}

function importsPastFronts(edges: Map<string, string[]>): string[] {
  const modules = moduleFolders(edges.keys());
  const bad: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const module = modules.find((m) => to.startsWith(`${m}/`) && !from.startsWith(`${m}/`));
      if (module && to !== `${module}/index.ts`) bad.push(`${from} imports ${to} past ${module}/index.ts`);
    }
  }
  return bad.sort();
}

describe("import graph", () => {
  const edges = graph();

  test("the scan sees the project: every file is read and has a layer", () => {
    expect(edges.size).toBeGreaterThan(200);
    let imports = 0;
    for (const [file, targets] of edges) {
      groupOf(file);
      imports += targets.length;
    }
    expect(imports).toBeGreaterThan(500);
  });

  test("no import points to a higher layer or a sibling surface", () => {
    expect(upwardImports(edges)).toEqual([]);
  });

  test("no import cycle", () => {
    expect(cycles(edges)).toEqual([]);
  });

  test("core's feature modules are imported through their index.ts only", () => {
    expect(moduleFolders(edges.keys()).length).toBeGreaterThanOrEqual(1);
    expect(importsPastFronts(edges)).toEqual([]);
  });
});

// The checks themselves must be able to fail: run on small made-up graphs.
describe("the checks catch what they are for", () => {
  test("an upward import and a sibling import (surfaces, comprehension parts) are reported", () => {
    const edges = new Map([
      ["src/core/a.ts", ["src/delivery/b.ts"]],
      ["src/mcp/c.ts", ["src/dashboard/d.ts"]],
      ["src/delivery/b.ts", ["src/core/e.ts"]],
      ["src/dashboard/d.ts", []],
      ["src/core/e.ts", []],
      ["src/comprehension/spam/f.ts", ["src/comprehension/injection/g.ts"]],
      ["src/comprehension/engine.ts", ["src/comprehension/spam/f.ts"]],
      ["src/comprehension/injection/g.ts", []],
    ]);
    expect(upwardImports(edges)).toEqual([
      "src/comprehension/spam/f.ts (comprehension/spam) imports src/comprehension/injection/g.ts (comprehension/injection)",
      "src/core/a.ts (core) imports src/delivery/b.ts (delivery)",
      "src/mcp/c.ts (mcp) imports src/dashboard/d.ts (dashboard)",
    ]);
  });

  test("an import past a module's front is reported; inside the module, or through index.ts, it is not", () => {
    const edges = new Map([
      ["src/core/events/index.ts", ["src/core/events/log.ts"]],
      ["src/core/events/log.ts", ["src/core/events/payload.ts"]],
      ["src/core/events/payload.ts", []],
      ["src/core/webhooks/index.ts", ["src/core/webhooks/post.ts"]],
      ["src/core/webhooks/post.ts", ["src/core/events/index.ts", "src/core/events/log.ts"]],
      ["src/http/routes/x.ts", ["src/core/webhooks/index.ts", "src/core/events/payload.ts", "src/core/ids.ts"]],
    ]);
    expect(importsPastFronts(edges)).toEqual([
      "src/core/webhooks/post.ts imports src/core/events/log.ts past src/core/events/index.ts",
      "src/http/routes/x.ts imports src/core/events/payload.ts past src/core/events/index.ts",
    ]);
  });

  test("a cycle inside one folder is reported", () => {
    const edges = new Map([
      ["src/comprehension/x.ts", ["src/comprehension/y.ts"]],
      ["src/comprehension/y.ts", ["src/comprehension/x.ts"]],
      ["src/comprehension/z.ts", ["src/comprehension/x.ts"]],
    ]);
    expect(cycles(edges)).toEqual([["src/comprehension/x.ts", "src/comprehension/y.ts"]]);
  });

  test("import forms are all read, comments are not", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "../core/b.ts";',
      'export { c } from "./c.ts";',
      'import "./d.ts";',
      'const e = await import("./e.ts");',
      'import {\n  f,\n  g,\n} from "./f.ts";',
      '// import { no } from "./commented.ts";',
      '/* import { no } from "./block.ts"; */',
    ].join("\n");
    expect(importsOf("src/mail/x.ts", text)).toEqual([
      "src/mail/a.ts",
      "src/core/b.ts",
      "src/mail/c.ts",
      "src/mail/d.ts",
      "src/mail/e.ts",
      "src/mail/f.ts",
    ]);
  });
});
