// Fuzzes POST /mcp over real HTTP: tools/call for every tool tools/list announces, with arguments
// drawn from the tool's own input schema and then mutated or replaced by any JSON at all, and
// JSON-RPC envelopes of every shape. Never a 500, never a hang, always JSON-RPC; a tool failure
// is the HTTP API's error ({status, error}) with a 4xx status, never an internal error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { HANG_MS } from "./fuzz/contract.ts";
import { hostileJson, hostileString } from "./fuzz/hostile.ts";
import { check, reportStats, resetStats, runs, stats } from "./fuzz/settings.ts";
import { makeWorld, type World } from "./fuzz/world.ts";

let world: World;
let tools: { name: string; inputSchema: Record<string, any> }[];

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

async function rpc(key: string | null, body: string, headers: Record<string, string> = HEADERS) {
  stats.mcpCalls++;
  const started = performance.now();
  const response = await fetch(`${world.base}/mcp`, {
    method: "POST",
    headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body,
    signal: AbortSignal.timeout(HANG_MS),
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, elapsedMs: performance.now() - started };
}

beforeAll(async () => {
  resetStats();
  world = await makeWorld();
  const listed = await rpc(world.keys.mcp, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  tools = JSON.parse(listed.text).result.tools;
}, 60_000);

afterAll(async () => {
  reportStats("fuzz.mcp");
  await world?.close();
});

/** Arguments shaped by a tool's input schema, some fields replaced by hostile values. */
function argumentsFor(schema: Record<string, any>, ids: string[]): fc.Arbitrary<unknown> {
  const properties = Object.keys(schema.properties ?? {});
  const field = (name: string) => {
    const type = schema.properties[name]?.type;
    const plausible =
      type === "boolean"
        ? fc.boolean()
        : type === "number" || type === "integer"
          ? fc.integer({ min: -5, max: 200 })
          : fc.constantFrom(...ids, "bob@example.org", "Hello");
    return fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 2, arbitrary: hostileJson(ids) });
  };
  const shaped = fc.record(Object.fromEntries(properties.map((name) => [name, field(name)])), { requiredKeys: [] });
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(shaped, fc.dictionary(hostileString(), hostileJson(ids), { maxKeys: 2 }))
        .map(([args, extra]) => (Object.keys(extra).length % 2 ? { ...extra, ...args } : args)),
    },
    { weight: 2, arbitrary: hostileJson(ids) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

function checkAnswer(answer: { status: number; contentType: string; text: string; elapsedMs: number }, request: string): void {
  const context = `request ${request.slice(0, 400)}\n→ ${answer.status} ${answer.text.slice(0, 400)}`;
  if (answer.elapsedMs > HANG_MS) throw new Error(`took ${Math.round(answer.elapsedMs)} ms\n${context}`);
  if (answer.status >= 500) throw new Error(`HTTP ${answer.status}\n${context}`);
  if (answer.status === 202 && answer.text === "") return; // a notification: accepted, nothing to answer
  if (!answer.contentType.startsWith("application/json")) throw new Error(`content-type ${answer.contentType}\n${context}`);
  const body = JSON.parse(answer.text);
  if (body?.jsonrpc !== "2.0" && !(answer.status === 401 && typeof body?.error === "string"))
    throw new Error(`not a JSON-RPC answer\n${context}`);
  if (/\s+at .*\.(ts|js):\d+/.test(answer.text)) throw new Error(`stack trace in the answer\n${context}`);
  if (body?.error && typeof body.error === "object" && body.error.code === -32603) throw new Error(`JSON-RPC internal error\n${context}`);
  const result = body?.result;
  if (result?.isError) {
    const failure = result.structuredContent;
    if (typeof failure?.status !== "number" || failure.status < 400 || failure.status === 500)
      throw new Error(`tool failure without a contract status\n${context}`);
    if (typeof failure.error !== "string" && typeof failure.code !== "string")
      throw new Error(`tool failure without error or code\n${context}`);
    if (JSON.stringify(failure) !== result.content?.[0]?.text) throw new Error(`text copy differs from structuredContent\n${context}`);
  }
}

describe("POST /mcp", () => {
  test("tools/list announces tools to fuzz", () => {
    expect(tools.length).toBeGreaterThanOrEqual(11);
  });

  test("findings kept as fixed cases: params that do not fit the method are -32602 Invalid params, not an internal error", async () => {
    for (const params of [
      '{"name":"list_messages","arguments":[]}',
      '{"name":"create_draft","arguments":"x"}',
      '{"name":5}',
      '{"arguments":{}}',
      "[]",
      '{"name":"get_message","arguments":null}',
    ]) {
      const answer = await rpc(world.keys.mcp, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":${params}}`);
      expect({ params, status: answer.status, body: JSON.parse(answer.text) }).toMatchObject({
        params,
        status: 200,
        body: { jsonrpc: "2.0", id: "c1", error: { code: -32602 } },
      });
    }
    // Found by the long run: initialize without params was -32603 too.
    for (const request of [
      '{"jsonrpc":"2.0","id":7,"method":"initialize"}',
      '{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":5}}',
      '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[]}',
    ]) {
      const answer = await rpc(world.keys.mcp, request);
      expect({ request, body: JSON.parse(answer.text) }).toMatchObject({ request, body: { id: 7, error: { code: -32602 } } });
    }
  });

  test("tools/call with arbitrary arguments: no 500, no hang, errors in the contract's shape", async () => {
    const ids = Object.values(world.ids).flat();
    const keys = fc.oneof(
      { weight: 6, arbitrary: fc.constant(world.keys.mcp) },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          world.keys.owner,
          world.keys.bound,
          world.keys.noCapabilities,
          world.keys.stranger,
          world.keys.bootstrap,
          "svc_invalid",
        ),
      },
    );
    const calls = fc
      .record({
        key: keys,
        tool: fc.oneof(
          { weight: 9, arbitrary: fc.constantFrom(...tools) },
          { weight: 1, arbitrary: hostileString().map((name) => ({ name, inputSchema: {} })) },
        ),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
      })
      .chain(({ key, tool, id }) => argumentsFor(tool.inputSchema, ids).map((args) => ({ key, name: tool.name, id, args })));
    await check(
      "mcp tools/call",
      fc.asyncProperty(calls, async ({ key, name, id, args }) => {
        const request = JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name, ...(args === undefined ? {} : { arguments: args }) },
        });
        checkAnswer(await rpc(key, request), request);
      }),
      runs(150, 4000),
    );
  }, 600_000);

  test("JSON-RPC envelopes of any shape: no 500, no hang", async () => {
    const envelope = fc.oneof(
      fc
        .record(
          {
            jsonrpc: fc.oneof(fc.constant("2.0"), hostileJson()),
            id: hostileJson(),
            method: fc.oneof(
              fc.constantFrom(
                "tools/call",
                "tools/list",
                "initialize",
                "ping",
                "notifications/initialized",
                "resources/list",
                "prompts/get",
              ),
              hostileString(),
            ),
            params: hostileJson(),
          },
          { requiredKeys: [] },
        )
        .map((value) => JSON.stringify(value)),
      hostileJson().map((value) => JSON.stringify(value) ?? "null"),
      fc.constantFrom(
        "",
        "{",
        "[]",
        '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
        "[".repeat(5000),
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_messages","arguments":{"mailbox_id":"\\ud800"}}}',
      ),
    );
    const headers = fc.constantFrom(
      HEADERS,
      { ...HEADERS, accept: "text/html" },
      { ...HEADERS, "content-type": "text/plain" },
      { ...HEADERS, "mcp-protocol-version": "1999-01-01" },
      { accept: "application/json, text/event-stream" },
    );
    await check(
      "mcp envelopes",
      fc.asyncProperty(
        envelope,
        headers,
        fc.constantFrom<string | null>(world.keys.mcp, world.keys.mcp, null, "svc_invalid"),
        async (body, headerSet, key) => {
          checkAnswer(await rpc(key, body, headerSet), body);
        },
      ),
      runs(80, 2000),
    );
  }, 600_000);
});
