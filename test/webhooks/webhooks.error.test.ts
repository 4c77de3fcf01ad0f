// Setting a webhook given bad input (the dashboard and the CLI call these core functions): each
// refusal has its exact status and error string, and a refused change leaves the webhook that was
// set before exactly as it was. webhooks.security.test.ts covers refused URLs and targets;
// webhooks.retry.test.ts covers redriving; this file covers secrets, event types, URL length and
// unknown accounts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EVENT_TYPES } from "../../src/core/events/index.ts";
import { setWebhook, setWebhookEventTypes, showWebhook } from "../../src/core/webhooks/index.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";
import { refusal } from "../support/refusal.ts";

let ctx: TestContext;
let account: Fixture;

// A public address literal: accepted without a DNS lookup, so no test here touches the outside world.
const URL_OK = "https://93.184.216.34/hook";
const SECRET = "whsec_error_test_secret_0123456789";

const set = (input: { url?: string; secret?: string | null; eventTypes?: string[] }, accountId = account.accountId) =>
  setWebhook(ctx.svc, {
    accountId,
    url: input.url ?? URL_OK,
    secret: input.secret === undefined ? SECRET : input.secret,
    eventTypes: input.eventTypes,
  });
const answer = async (work: Promise<unknown>) => {
  const refused = await refusal(work);
  return { status: refused.status, body: refused.body };
};

beforeAll(async () => {
  ctx = await makeTestContext();
  account = await makeAccount(ctx);
  await set({ eventTypes: ["message.sent"] });
});

afterAll(async () => {
  await ctx.close();
});

describe("secrets", () => {
  test("shorter than 16 or longer than 256 characters is 400, and the stored webhook is unchanged", async () => {
    const before = await showWebhook(ctx.sql, account);
    for (const secret of ["", "x".repeat(15), "x".repeat(257)]) {
      expect({ length: secret.length, ...(await answer(set({ url: "https://93.184.216.35/other", secret }))) }).toEqual({
        length: secret.length,
        status: 400,
        body: { error: "webhook secret must be 16 to 256 characters" },
      });
    }
    expect(await showWebhook(ctx.sql, account)).toEqual(before);
  });

  test("16 and 256 characters are the bounds that are accepted", async () => {
    const other = await makeAccount(ctx);
    for (const secret of ["s".repeat(16), "s".repeat(256)]) {
      const result = await set({ secret }, other.accountId);
      expect(result.secret).toBe(secret);
    }
  });

  test("an omitted secret is generated in the Standard Webhooks form", async () => {
    const other = await makeAccount(ctx);
    const result = await set({ secret: null }, other.accountId);
    expect(result.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });
});

describe("event types", () => {
  test("an unknown type is 400 naming it and the known types; the choice stored before stays", async () => {
    const expected = { status: 400, body: { error: `unknown event type 'message.exploded' (known: ${EVENT_TYPES.join(", ")})` } };
    expect(expected.body.error).toContain("message.received, message.sent");
    expect(await answer(set({ eventTypes: ["message.sent", "message.exploded"] }))).toEqual(expected);
    expect(await answer(setWebhookEventTypes(ctx.sql, account, ["message.exploded"]))).toEqual(expected);
    expect((await showWebhook(ctx.sql, account))?.event_types).toEqual(["message.received", "message.sent"]);
  });

  test("a long unknown type is cut to 64 characters in the error", async () => {
    const long = `t${"y".repeat(300)}`;
    const refused = await answer(setWebhookEventTypes(ctx.sql, account, [long]));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toStartWith(`unknown event type '${long.slice(0, 64)}' (known: `);
  });

  test("setting types on an account without a webhook changes nothing and says so", async () => {
    const other = await makeAccount(ctx);
    expect(await setWebhookEventTypes(ctx.sql, other, ["message.sent"])).toBe(false);
    expect(await showWebhook(ctx.sql, other)).toBeNull();
  });
});

describe("urls and accounts", () => {
  test("a URL longer than 2048 characters is 400 webhook url is too long", async () => {
    const before = await showWebhook(ctx.sql, account);
    const url = `https://93.184.216.34/${"p".repeat(2048)}`;
    expect(await answer(set({ url }))).toEqual({ status: 400, body: { error: "webhook url is too long" } });
    expect(await showWebhook(ctx.sql, account)).toEqual(before);
  });

  test("an empty URL is 400 not a valid URL", async () => {
    expect(await answer(set({ url: "" }))).toEqual({ status: 400, body: { error: "webhook url is not a valid URL" } });
  });

  test("an unknown account is 404 and nothing is stored", async () => {
    const refused = await answer(set({}, "acc_doesnotexist"));
    expect(refused).toEqual({ status: 404, body: { error: "account not found" } });
    expect(await ctx.sql`select 1 from webhook_endpoints where account_id = 'acc_doesnotexist'`).toHaveLength(0);
  });
});
