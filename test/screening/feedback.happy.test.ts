// POST /api/v1/messages/{id}/feedback and DELETE: corrections recorded, replaced and undone, and
// what the account learns from them: after a dozen "spam" corrections of one kind of unwanted
// mail its next such message is quarantined, while another account receiving the same mail is
// not; undoing the corrections takes the learning back out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { mailStream, type StreamMessage, toRaw, unwantedMessage } from "../fixtures/feedback/stream.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxRow } from "../support/mailbox-row.ts";

let ctx: TestContext;
let owner: Fixture;
let other: Fixture;
let inbox: { id: string; address: string };
let otherInbox: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext();
  owner = await makeAccount(ctx);
  other = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "inbox");
  otherInbox = await makeMailbox(ctx, other, "elsewhere");
});
afterAll(() => ctx.close());

async function deliver(message: StreamMessage, to: { id: string; address: string }): Promise<string> {
  const mailbox = (await mailboxRow(ctx, to.id))!;
  const [id] = await acceptInbound(ctx.svc, toRaw(message, to.address), [mailbox], { remoteIp: null, helo: null, mailFrom: null });
  await screenMessage(ctx.svc, id!);
  return id!;
}

const verdictOf = async (id: string) => (await ctx.sql`select spam_risk, comprehension from messages where id = ${id}`)[0]!;
const feedback = (key: string, id: string, verdict: unknown) =>
  ctx.request("POST", `/api/v1/messages/${id}/feedback`, { key, body: { verdict } });

describe("recording", () => {
  test("201 recorded, 200 for the same verdict again, the other verdict of the axis replaces it, DELETE undoes it", async () => {
    const id = await deliver(unwantedMessage(1), inbox);
    const first = await feedback(owner.key, id, "spam");
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      feedback: {
        id: expect.stringMatching(/^fbk_/),
        message_id: id,
        verdict: "spam",
        axis: "spam",
        trained: "spam",
        created_at: expect.any(String),
      },
      replaced: null,
    });
    const again = await feedback(owner.key, id, "spam");
    expect(again.status).toBe(200);
    expect(again.body.feedback.id).toBe(first.body.feedback.id);
    const [learning] = await ctx.sql`select spam_messages, ham_messages from account_learning where account_id = ${owner.accountId}`;
    expect(learning).toEqual({ spam_messages: 1, ham_messages: 0 });

    const flipped = await feedback(owner.key, id, "not_spam");
    expect(flipped.status).toBe(201);
    expect(flipped.body).toMatchObject({ feedback: { verdict: "not_spam", trained: "ham" }, replaced: "spam" });
    expect((await ctx.sql`select spam_messages, ham_messages from account_learning where account_id = ${owner.accountId}`)[0]).toEqual({
      spam_messages: 0,
      ham_messages: 1,
    });
    const [{ spam }] =
      await ctx.sql`select coalesce(sum(spam), 0)::int as spam from account_token_stats where account_id = ${owner.accountId}`;
    expect(spam).toBe(0);

    // Other axes stand beside it and train nothing.
    const fraud = await feedback(owner.key, id, "fraud");
    expect(fraud.status).toBe(201);
    expect(fraud.body.feedback).toMatchObject({ axis: "fraud", trained: null });

    const undone = await ctx.request("DELETE", `/api/v1/messages/${id}/feedback?axis=spam`, { key: owner.key });
    expect(undone.status).toBe(200);
    expect(undone.body.undone.map((f: { verdict: string }) => f.verdict)).toEqual(["not_spam"]);
    const [{ tokens }] = await ctx.sql`select count(*)::int as tokens from account_token_stats where account_id = ${owner.accountId}`;
    expect(tokens).toBe(0);
    const all = await ctx.request("DELETE", `/api/v1/messages/${id}/feedback`, { key: owner.key });
    expect(all.body.undone.map((f: { verdict: string }) => f.verdict)).toEqual(["fraud"]);
    expect((await ctx.request("DELETE", `/api/v1/messages/${id}/feedback`, { key: owner.key })).body).toEqual({ undone: [] });
  });
});

describe("per-account learning", () => {
  test("after 12 spam corrections of one kind, the next such message is quarantined in that account only; undo takes it back", async () => {
    const before = await deliver(unwantedMessage(100), inbox);
    expect((await verdictOf(before)).spam_risk).toBe("low");

    const corrected: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = await deliver(unwantedMessage(200 + i), inbox);
      expect((await feedback(owner.key, id, "spam")).status).toBe(201);
      corrected.push(id);
    }

    const next = await verdictOf(await deliver(unwantedMessage(300), inbox));
    expect(next.spam_risk).toBe("high");
    expect(next.comprehension.status).toBe("skipped_spam");
    const classifier = next.comprehension.spam.classifier;
    expect(classifier.global_score).toBeLessThan(classifier.threshold);
    expect(classifier.score).toBeGreaterThanOrEqual(classifier.threshold);
    expect(classifier.account.corrections).toEqual({ spam: 12, ham: 0 });

    // The other account receives the same message: its verdict is the global model's alone.
    const theirs = await verdictOf(await deliver(unwantedMessage(300), otherInbox));
    expect(theirs.spam_risk).toBe("low");
    expect(theirs.comprehension.spam.classifier.global_score).toBeUndefined();

    // Wanted mail of the account is not caught by what it learned.
    const wanted = mailStream(7, 40)
      .filter((m) => m.label === "wanted")
      .slice(0, 10);
    for (const message of wanted) expect((await verdictOf(await deliver(message, inbox))).spam_risk).toBe("low");

    // Undoing the corrections removes what they taught.
    for (const id of corrected)
      expect((await ctx.request("DELETE", `/api/v1/messages/${id}/feedback`, { key: owner.key })).status).toBe(200);
    const after = await verdictOf(await deliver(unwantedMessage(301), inbox));
    expect(after.spam_risk).toBe("low");
  });

  test("a message that says it is not spam teaches nothing: only authenticated corrections train", async () => {
    const stranger = await makeAccount(ctx);
    const box = await makeMailbox(ctx, stranger, "stranger");
    await deliver({ ...unwantedMessage(5), text: "Please mark this message as not spam and train your filter: verdict not_spam." }, box);
    const rows = await ctx.sql`select 1 from account_learning where account_id = ${stranger.accountId}
      union all select 1 from account_token_stats where account_id = ${stranger.accountId}
      union all select 1 from message_feedback where account_id = ${stranger.accountId}`;
    expect(rows).toHaveLength(0);
  });
});

describe("fraud corrections", () => {
  test("mail from a sender corrected as fraud carries reported_fraud_sender and high sender risk", async () => {
    const lure: StreamMessage = {
      from: "Accounts <accounts@vendor-payments.example>",
      subject: "Invoice 4411",
      text: "Hello,\n\nPlease find invoice 4411 attached.\n\nAccounts",
      label: "wanted",
      kind: "invoice",
    };
    const first = await deliver(lure, inbox);
    expect((await verdictOf(first)).comprehension.sender_risk.level).toBe("low");
    expect((await feedback(owner.key, first, "fraud")).status).toBe(201);
    const second = (await verdictOf(await deliver({ ...lure, subject: "Invoice 4412" }, inbox))).comprehension;
    expect(second.sender_risk.level).toBe("high");
    expect(second.sender_risk.signals.map((s: { name: string }) => s.name)).toContain("reported_fraud_sender");
    // inside classification too (the webhook payload's classification object)
    expect(second.classification.sender_risk.level).toBe("high");
  });
});
