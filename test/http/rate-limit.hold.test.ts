// The refusal hold (src/request/rate-limit-hold.ts): a key that comes back before the Retry-After
// of its last 429 gets its next 429 only after a hold (half to all of RATE_LIMIT_REFUSAL_HOLD_MS), with the same status,
// body and fields; at most RATE_LIMIT_HELD_PER_KEY of its requests are held at once, past that the
// 429 is immediate; a client that waits as told is never held; other keys are served meanwhile;
// and the flooding key is still held to its rate.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CoreError } from "../../src/core/errors.ts";
import { leaseChunk, rateLimiterFor } from "../../src/request/rate-limit.ts";
import { makeRateLimitFields } from "../../src/request/rate-limit-fields.ts";
import { makeRefusalHold } from "../../src/request/rate-limit-hold.ts";
import { makeAccount, makeTestContext, type TestContext } from "../support/context.ts";

const HOLD_MS = 800; // under the 1 s Retry-After of a 1/s key, which bounds any hold
const HELD_PER_KEY = 3;

let ctx: TestContext;

beforeAll(async () => {
  ctx = await makeTestContext({
    RATE_LIMIT_PER_SECOND: "1",
    RATE_LIMIT_BURST: "1",
    RATE_LIMIT_REFUSAL_HOLD_MS: String(HOLD_MS),
    RATE_LIMIT_HELD_PER_KEY: String(HELD_PER_KEY),
  });
});

afterAll(() => ctx.close());

const get = (key: string) => ctx.request("GET", "/api/v1/mailboxes", { key });
const held = (keyId: string) => rateLimiterFor(ctx.svc).held(keyId);

/** A key whose token is spent and which was just told to come back later. */
async function refusedKey() {
  const fixture = await makeAccount(ctx);
  expect((await get(fixture.key)).status).toBe(200);
  expect((await get(fixture.key)).status).toBe(429);
  return fixture;
}

/** Waits (polling) until `condition` holds; fails after `ms`. */
async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) throw new Error("condition not reached");
    await Bun.sleep(5);
  }
}

function expectRefusalFields(headers: Headers): void {
  const retryAfter = headers.get("retry-after");
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(headers.get("ratelimit-policy")).toBe('"per-key";q=1;w=1');
  expect(headers.get("ratelimit")).toBe(`"per-key";r=0;t=${retryAfter}`);
}

test("a key that comes back before its Retry-After gets its 429 after the hold, with the same body and fields", async () => {
  const flooder = await refusedKey();
  const started = performance.now();
  const answer = get(flooder.key);
  await until(() => held(flooder.keyId) === 1);
  const response = await answer;
  // A hold is half the setting or more, and a timer fires no earlier than asked (a millisecond of rounding aside).
  expect(performance.now() - started).toBeGreaterThanOrEqual(HOLD_MS / 2 - 1);
  expect(held(flooder.keyId)).toBe(0);
  expect(response.status).toBe(429);
  expect(response.text).toBe('{"error":"rate limited"}');
  expectRefusalFields(response.headers);
});

test("at most RATE_LIMIT_HELD_PER_KEY requests of a key are held; past that the 429 is answered at once", async () => {
  const flooder = await refusedKey();
  const settled: number[] = [];
  const answers = Array.from({ length: HELD_PER_KEY + 4 }, (_, i) =>
    get(flooder.key).then((response) => {
      settled.push(i);
      return response;
    }),
  );
  // The four past the bound are answered while the first three are still held.
  await until(() => settled.length === 4);
  expect(held(flooder.keyId)).toBe(HELD_PER_KEY);
  expect(settled.length).toBe(4);
  const responses = await Promise.all(answers);
  expect(held(flooder.keyId)).toBe(0);
  for (const response of responses) {
    expect(response.status).toBe(429);
    expectRefusalFields(response.headers);
  }
});

test("another key is answered while a flooding key's requests are held", async () => {
  const flooder = await refusedKey();
  const neighbour = await makeAccount(ctx);
  const flood = Array.from({ length: HELD_PER_KEY }, () => get(flooder.key));
  await until(() => held(flooder.keyId) === HELD_PER_KEY);
  const response = await get(neighbour.key);
  expect(response.status).toBe(200);
  // The flood's requests were still waiting when the neighbour had its answer.
  expect(held(flooder.keyId)).toBe(HELD_PER_KEY);
  for (const answer of await Promise.all(flood)) expect(answer.status).toBe(429);
});

test("MCP requests of a key that comes back early are held the same way", async () => {
  const flooder = await refusedKey();
  const answer = ctx.app.handle(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${flooder.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );
  await until(() => held(flooder.keyId) === 1);
  const response = await answer;
  expect(response.status).toBe(429);
  expect(await response.text()).toBe('{"error":"rate limited"}');
  expectRefusalFields(response.headers);
});

describe("the hold's decision (clock driven by the test)", () => {
  const fields = makeRateLimitFields({ perSecond: 1, burst: 1 });
  /** What refuse did: "at once" (threw), or "held" (returned a promise, which is then settled quietly). */
  function outcome(hold: ReturnType<typeof makeRefusalHold>, waitMs: number): "at once" | "held" {
    try {
      hold.refuse("key", waitMs).catch(() => {});
      return "held";
    } catch (error) {
      expect(error).toBeInstanceOf(CoreError);
      expect((error as CoreError).code).toBe("rate_limited");
      return "at once";
    }
  }

  test("a client that waits out its Retry-After is never held; one that comes back early is", () => {
    let clock = 0;
    const hold = makeRefusalHold({ refusalHoldMs: 5, heldPerKey: 10 }, fields, () => clock);
    expect(outcome(hold, 300)).toBe("at once"); // the first 429: Retry-After 1
    clock = 500;
    expect(outcome(hold, 300)).toBe("held"); // back after 0.5 s
    clock = 1000; // waited out the Retry-After of the first (the held one is not answered yet)
    expect(outcome(hold, 300)).toBe("at once");
  });

  test("a hold of 0 answers every refusal at once", () => {
    let clock = 0;
    const hold = makeRefusalHold({ refusalHoldMs: 0, heldPerKey: 10 }, fields, () => clock);
    for (; clock < 100; clock += 10) expect(outcome(hold, 300)).toBe("at once");
  });
});

describe("a flooding key under the hold", () => {
  const RATE = 20;
  const BURST = 20;
  const HOLD = 250;
  let flood: TestContext;

  beforeAll(async () => {
    flood = await makeTestContext({
      RATE_LIMIT_PER_SECOND: String(RATE),
      RATE_LIMIT_BURST: String(BURST),
      RATE_LIMIT_REFUSAL_HOLD_MS: String(HOLD),
    });
  });

  afterAll(() => flood.close());

  test("is still held to burst + rate × t + one chunk, and each of its loops asks about once per hold", async () => {
    const flooder = await makeAccount(flood);
    const loops = 10;
    let admitted = 0;
    let refused = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: loops }, async () => {
        while (performance.now() - started < 3000) {
          const response = await flood.request("GET", "/api/v1/mailboxes", { key: flooder.key });
          if (response.status === 200) admitted++;
          else if (response.status === 429) refused++;
          else throw new Error(`unexpected ${response.status}: ${response.text}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`rate-limit hold: ${admitted} admitted, ${refused} refused in ${seconds.toFixed(2)} s over ${loops} loops`);
    expect(admitted).toBeLessThanOrEqual(Math.floor(BURST + RATE * seconds + leaseChunk({ perSecond: RATE, burst: BURST })));
    expect(admitted).toBeGreaterThanOrEqual(Math.floor((BURST + RATE * seconds) * 0.8));
    // Every 429 but the key's first took a hold of at least half the setting: a loop gets at most
    // one per half hold (without the hold, ten loops in process got thousands).
    expect(refused).toBeLessThanOrEqual(loops * Math.ceil((seconds * 1000) / (HOLD / 2) + 1) + 1);
  });
});
