// Per-key rate limits (src/request/rate-limit.ts): a key past its burst is answered 429 with
// {"error":"rate limited"}, a numeric Retry-After and the RateLimit-Policy / RateLimit fields, on
// the HTTP API and on MCP, while another key is untouched; the bucket refills at its rate.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeLocalBucket, makeRateLimiter } from "../../src/request/rate-limit.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let flooder: Fixture;
let neighbour: Fixture;

beforeAll(async () => {
  ctx = await makeTestContext({ RATE_LIMIT_PER_SECOND: "1", RATE_LIMIT_BURST: "3" });
  flooder = await makeAccount(ctx);
  neighbour = await makeAccount(ctx);
});

afterAll(() => ctx.close());

test("past its burst a key gets 429 with Retry-After and RateLimit fields; another key does not", async () => {
  const statuses: number[] = [];
  const remaining: number[] = [];
  let limited: Awaited<ReturnType<TestContext["request"]>> | null = null;
  for (let i = 0; i < 4; i++) {
    const response = await ctx.request("GET", "/api/v1/mailboxes", { key: flooder.key });
    statuses.push(response.status);
    if (response.status === 429) limited = response;
    else {
      expect(response.headers.get("ratelimit-policy")).toBe('"per-key";q=3;w=3');
      remaining.push(Number(/^"per-key";r=(\d+);t=\d+$/.exec(response.headers.get("ratelimit") ?? "")?.[1]));
    }
  }
  expect(statuses).toEqual([200, 200, 200, 429]);
  // Admitted answers carry the fields too, with the tokens left after them.
  expect(remaining).toEqual([2, 1, 0]);
  expect(limited!.text).toBe('{"error":"rate limited"}');
  expect(limited!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
  expect(limited!.headers.get("ratelimit-policy")).toBe('"per-key";q=3;w=3');
  expect(limited!.headers.get("ratelimit")).toMatch(/^"per-key";r=0;t=[1-9]\d*$/);
  expect((await ctx.request("GET", "/api/v1/mailboxes", { key: neighbour.key })).status).toBe(200);
  // A bad key is still 401, never 429.
  expect((await ctx.request("GET", "/api/v1/mailboxes", { key: "not-a-key" })).status).toBe(401);
});

const mcpToolsList = (key: string) =>
  ctx.app.handle(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );

test("MCP requests draw on the same bucket, and admitted ones carry the fields", async () => {
  const admitted = await mcpToolsList(neighbour.key);
  expect(admitted.status).toBe(200);
  expect(admitted.headers.get("ratelimit-policy")).toBe('"per-key";q=3;w=3');
  expect(admitted.headers.get("ratelimit")).toMatch(/^"per-key";r=\d+;t=\d+$/);
  const response = await mcpToolsList(flooder.key);
  expect(response.status).toBe(429);
  expect(await response.text()).toBe('{"error":"rate limited"}');
  expect(response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
});

test("the bucket refills at its rate", async () => {
  const key = (await makeAccount(ctx)).key;
  const admittedUntilRefused = async () => {
    for (let admitted = 0; admitted < 10; admitted++) {
      if ((await ctx.request("GET", "/api/v1/mailboxes", { key })).status === 429) return admitted;
    }
    return 10;
  };
  expect(await admittedUntilRefused()).toBe(3); // the burst
  await Bun.sleep(2100); // one per second: two tokens back, three if the burst took most of a second
  const refilled = await admittedUntilRefused();
  expect(refilled).toBeGreaterThanOrEqual(2);
  expect(refilled).toBeLessThanOrEqual(3);
});

test("over a long run a flooding key gets its rate plus its burst, no more", () => {
  let clock = 0;
  const bucket = makeLocalBucket({ perSecond: 10, burst: 20 }, () => clock);
  let allowed = 0;
  // 1000 attempts a second for 10 s.
  for (let i = 0; i < 10_000; i++) {
    clock = i;
    if (bucket.take("k").admitted) allowed++;
  }
  expect(allowed).toBeGreaterThanOrEqual(10 * 10 + 20 - 1);
  expect(allowed).toBeLessThanOrEqual(10 * 10 + 20 + 1);
  const off = makeRateLimiter(bucket, { perSecond: 0, burst: 1, refusalHoldMs: 250, heldPerKey: 1 });
  expect(off.take("k")).toBeNull();
});
