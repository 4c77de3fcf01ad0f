// The README is a stranger's guide and docs/ holds the rest: every relative link in them must land
// on a file of this repository (and on a heading, when it names one), the README stays short, and
// docs/configuration.md lists every variable src/config.ts reads.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..", "..");
const docsDir = join(root, "docs");
const markdownFiles = [
  join(root, "README.md"),
  ...readdirSync(docsDir)
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(docsDir, f)),
];

/** Inline links and images outside fenced code blocks and code spans: `[text](target)`. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
  const anchors = new Set<string>();
  for (const m of prose.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)) {
    anchors.add(
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .trim()
        .replace(/\s/g, "-"),
    );
  }
  return anchors;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe("README and docs", () => {
  test("the README has fewer than 200 lines", () => {
    const lines = readFileSync(join(root, "README.md"), "utf8").split("\n").length;
    expect(lines).toBeLessThan(200);
  });

  test("the link parser finds links and skips code", () => {
    expect(linksOf("see [a](docs/a.md) and ![b](x.png#y)\n`[c](nope.md)`\n```\n[d](nope.md)\n```\n")).toEqual(["docs/a.md", "x.png#y"]);
    expect([...anchorsOf("## The dashboard's security model\n# Crash recovery\n")]).toEqual([
      "the-dashboards-security-model",
      "crash-recovery",
    ]);
  });

  for (const file of markdownFiles) {
    const name = relative(root, file);
    test(`every relative link in ${name} resolves inside the repository`, () => {
      const text = readFileSync(file, "utf8");
      const broken: string[] = [];
      for (const target of linksOf(text)) {
        if (isExternal(target)) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
        if (relative(root, resolved).startsWith("..")) {
          broken.push(`${target} (outside the repository)`);
          continue;
        }
        if (!existsSync(resolved)) {
          broken.push(`${target} (no such file)`);
          continue;
        }
        if (anchor && resolved.endsWith(".md") && statSync(resolved).isFile() && !anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) {
          broken.push(`${target} (no such heading)`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  test("docs/configuration.md lists every variable src/config.ts reads", () => {
    const config = readFileSync(join(root, "src/config.ts"), "utf8");
    const variables = [...new Set([...config.matchAll(/\(env, "([A-Z][A-Z0-9_]*)"/g)].map((m) => m[1]!))];
    expect(variables.length).toBeGreaterThan(40);
    const documented = readFileSync(join(docsDir, "configuration.md"), "utf8");
    expect(variables.filter((v) => !documented.includes(`\`${v}\``))).toEqual([]);
  });
});
