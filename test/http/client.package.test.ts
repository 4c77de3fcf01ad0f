// @agent-mailbox/client (src/client/package.json) as its users get it: built to JavaScript and
// .d.ts (`npm run client:build`), linked into a consumer project (test/fixtures/client-consumer),
// type-checked there under nodenext and bundler resolution together with the README's TypeScript
// example, and run under Node (import and require) and Deno against a started service. Packing
// it carries the build and no install script of the server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { signWebhook } from "../../src/webhook-signature.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";

const root = join(import.meta.dir, "..", "..");
const consumer = join(root, "test/fixtures/client-consumer");
const bin = (name: string) => join(root, "node_modules/.bin", name);

let ctx: TestContext;
let server: HttpServer;
let owner: Fixture;

async function run(command: string[], cwd = consumer) {
  const child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr, output: `${stdout}${stderr}` };
}

beforeAll(async () => {
  const build = await run(["node", join(root, "src/client/build.mjs")], root);
  expect(build.code, build.output).toBe(0);
  // As `npm install ../../../src/client` links it; openapi-fetch resolves from the package's own path.
  const scope = join(consumer, "node_modules/@agent-mailbox");
  rmSync(join(consumer, "node_modules"), { recursive: true, force: true });
  mkdirSync(scope, { recursive: true });
  symlinkSync(join(root, "src/client"), join(scope, "client"), "dir");
  // The README's TypeScript example, as written, is type-checked with the consumer's own code.
  const example = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(root, "README.md"), "utf8"))![1]!;
  expect(example).toContain('from "@agent-mailbox/client"');
  writeFileSync(join(consumer, "readme-example.ts"), example);

  ctx = await makeTestContext();
  server = startHttpServer(ctx.svc, ctx.app, 0);
  owner = await makeAccount(ctx);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await ctx?.close();
  rmSync(join(consumer, "node_modules"), { recursive: true, force: true });
  rmSync(join(consumer, "readme-example.ts"), { force: true });
});

test("the build is JavaScript with declarations, and its declarations import .js files", () => {
  const dist = join(root, "src/client/dist/client");
  for (const file of ["index.js", "index.d.ts", "verify.js", "verify.d.ts", "schema.d.ts"]) expect(existsSync(join(dist, file))).toBe(true);
  const declarations = readFileSync(join(dist, "index.d.ts"), "utf8");
  expect(declarations).not.toMatch(/from "\.{1,2}\/[^"]+\.ts"/);
  expect(readFileSync(join(dist, "index.js"), "utf8")).not.toMatch(/from "\.{1,2}\/[^"]+\.ts"/);
});

for (const resolution of ["nodenext", "bundler"]) {
  test(`a TypeScript project type-checks against it (moduleResolution ${resolution}), the README example included`, async () => {
    const checked = await run(["node", bin("tsc"), "-p", `tsconfig.${resolution}.json`]);
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
  }, 120_000);
}

async function signedBody() {
  const secret = "whsec_consumer_0123456789";
  const body = JSON.stringify({ event_id: "evt_consumer", type: "message.received" });
  const timestamp = Date.now();
  return [secret, body, String(timestamp), await signWebhook(secret, timestamp, body)];
}

const expected = { created: 201, listed: true, unknown: 404, verified: true, forged: false };

test("it runs under Node: the typed calls against the service, a typed 404, the verifier", async () => {
  const ran = await run(["node", "consumer.mjs", `http://127.0.0.1:${server.port}`, owner.key, ...(await signedBody())]);
  expect(ran.code, ran.output).toBe(0);
  expect(JSON.parse(ran.stdout)).toEqual(expected);
}, 60_000);

test("it loads with require() too (CommonJS on Node 20.19+)", async () => {
  const ran = await run(["node", "consumer.cjs"]);
  expect(ran.code, ran.output).toBe(0);
  expect(JSON.parse(ran.stdout)).toEqual({ client: "function", verify: "function" });
}, 60_000);

test("it runs under Deno", async () => {
  const ran = await run([
    bin("deno"),
    "run",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "consumer.mjs",
    `http://127.0.0.1:${server.port}`,
    owner.key,
    ...(await signedBody()),
  ]);
  expect(ran.code, ran.output).toBe(0);
  expect(JSON.parse(ran.stdout.trim().split("\n").at(-1)!)).toEqual(expected);
}, 120_000);

test("packed, it carries the build and no install script: installing the client runs nothing of the server", async () => {
  const manifest = JSON.parse(readFileSync(join(root, "src/client/package.json"), "utf8"));
  expect(Object.keys(manifest.scripts ?? {}).filter((name) => /install/.test(name))).toEqual([]);
  expect(Object.keys(manifest.dependencies)).toEqual(["openapi-fetch"]);
  const packed = await run(["npm", "pack", "--dry-run", "--json", "--ignore-scripts"], join(root, "src/client"));
  expect(packed.code, packed.output).toBe(0);
  const files: string[] = JSON.parse(packed.stdout)[0].files.map((file: { path: string }) => file.path);
  expect(files).toContain("dist/client/index.js");
  expect(files).toContain("dist/client/index.d.ts");
  expect(files).toContain("dist/client/verify.js");
  expect(files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([]);
}, 60_000);
