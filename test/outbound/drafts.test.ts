// Drafts and the approval queue: every row of the contract's state table and the decisions in docs/decisions.md
// (approval sends through the pipeline, a permanent rejection returns the draft to `draft`,
// reconciliation resolves `sending`), plus races between send, edit and delete.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { approveDraft, rejectDraft } from "../../src/core/outbound/drafts.ts";
import { addSendListEntry } from "../../src/core/outbound/sendlists.ts";
import { addSuppression } from "../../src/core/outbound/suppressions.ts";
import { makeAccount, makeMailbox } from "../support/context.ts";
import {
  BASE_URL,
  deliverInbound,
  type Outbound,
  parseMail,
  runCli,
  runWorkerUntil,
  startOutbound,
  withSendHeldAtQuota,
} from "../support/outbound.ts";
import { refusal } from "../support/refusal.ts";

// Subprocesses, the worker and a loaded CI machine need more than the default 5 s.
setDefaultTimeout(30_000);

let o: Outbound;
let gated: { id: string; address: string };

const DRAFT_KEYS = [
  "created_at",
  "id",
  "mailbox_id",
  "reply_to_message_id",
  "requires_human",
  "status",
  "subject",
  "text",
  "thread_id",
  "to",
  "updated_at",
];
const NOT_FOUND = JSON.stringify({ error: "draft not found" });
const CONFLICT = { code: "approval_conflict", error: "draft is no longer editable, deletable or sendable" };

beforeAll(async () => {
  o = await startOutbound({ RECONCILE_GRACE_S: "0", DELIVERY_RETRY_S: "0", DELIVERY_RETRY_LIMIT: "2" });
  gated = await makeMailbox(o.ctx, o.owner, "gated");
  await updateMailboxSettings(o.ctx.sql, o.owner, gated.id, { requireApproval: true });
});

afterAll(async () => {
  await o.close();
});

afterEach(() => {
  o.sink.mode = "accept";
});

const req = (method: string, path: string, body?: unknown) => o.ctx.request(method, `/api/v1${path}`, { key: o.owner.key, body });

async function createDraft(extra: Record<string, unknown> = {}, mailboxId = o.mailbox.id): Promise<string> {
  const response = await req("POST", "/drafts", {
    mailbox_id: mailboxId,
    to: "alice@example.org",
    subject: "Draft subject",
    text: "Draft text",
    ...extra,
  });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** The operator (CLI) decides on any account's drafts. */
const operator = { accountId: null, name: "test" };

const draftStatus = async (id: string) => (await o.ctx.sql`select status from drafts where id = ${id}`)[0]?.status as string | undefined;

/** The cli, pointed at the sink like the service. */
const cli = (args: string[]) =>
  runCli(o.ctx, args, { DELIVERY_TRANSPORT: "smtp", SMTP_RELAY_URL: `smtp://127.0.0.1:${o.sink.port}`, PUBLIC_BASE_URL: BASE_URL });

describe("create, list, get", () => {
  test("create answers 201 with exactly id and status draft", async () => {
    const response = await req("POST", "/drafts", { mailbox_id: o.mailbox.id, to: "alice@example.org", text: "Hi" });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["id", "status"]);
    expect(response.body.id).toMatch(/^drf_/);
    expect(response.body.status).toBe("draft");
  });

  test("a draft on a require_approval mailbox is created as a plain draft, not queued", async () => {
    const id = await createDraft({}, gated.id);
    const draft = await req("GET", `/drafts/${id}`);
    expect(draft.body).toMatchObject({ status: "draft", requires_human: false });
  });

  test("get returns exactly the Draft fields with the stored values", async () => {
    const id = await createDraft({ to: "Alice <alice@example.org>" });
    const response = await req("GET", `/drafts/${id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(DRAFT_KEYS);
    expect(response.body).toMatchObject({
      id,
      mailbox_id: o.mailbox.id,
      status: "draft",
      to: "alice@example.org",
      subject: "Draft subject",
      text: "Draft text",
      reply_to_message_id: null,
      requires_human: false,
    });
    expect(response.body.thread_id).toMatch(/^thr_/);
    expect(typeof response.body.created_at).toBe("string");
    expect(typeof response.body.updated_at).toBe("string");
  });

  test("a reply draft resolves recipient, subject and thread from the original", async () => {
    const originalId = await deliverInbound(o.ctx, o.mailbox.id, {
      from: "Zoe <zoe@example.org>",
      subject: "Proposal",
      messageId: "<p-1@example.org>",
    });
    const original = (await req("GET", `/messages/${originalId}`)).body;
    const response = await req("POST", "/drafts", { mailbox_id: o.mailbox.id, reply_to_message_id: originalId, text: "Thanks" });
    expect(response.status).toBe(201);
    const draft = (await req("GET", `/drafts/${response.body.id}`)).body;
    expect(draft).toMatchObject({
      to: "zoe@example.org",
      subject: "Re: Proposal",
      reply_to_message_id: originalId,
      thread_id: original.thread_id,
    });

    // Sent, it carries the thread headers.
    const sent = await req("POST", `/drafts/${response.body.id}/send`);
    expect(sent.status).toBe(201);
    expect(sent.body.thread_id).toBe(original.thread_id);
    expect((await parseMail(o.sink.messages.at(-1)!.raw)).inReplyTo).toBe("<p-1@example.org>");
  });

  test("create validates like send (400) and resolves like send (404)", async () => {
    const base = { mailbox_id: o.mailbox.id, to: "alice@example.org", text: "Hi" };
    for (const body of [
      { to: "alice@example.org", text: "Hi" },
      { mailbox_id: o.mailbox.id, to: "alice@example.org" },
      { ...base, client_id: "draft:1" },
      { ...base, client_id: "x".repeat(257) },
      { ...base, to: "a@example.org, b@example.org" },
      { ...base, to: "a@example.org\r\nBcc: e@evil.example" },
      { ...base, subject: "a\r\nb" },
      { mailbox_id: o.mailbox.id, text: "Hi" },
      { ...base, status: "sent" },
    ]) {
      const response = await req("POST", "/drafts", body);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual(["error"]);
    }
    expect((await req("POST", "/drafts", { ...base, mailbox_id: "mbx_missing" })).body).toEqual({ error: "not found" });
    expect((await req("POST", "/drafts", { ...base, reply_to_message_id: "msg_missing" })).body).toEqual({ error: "message not found" });
  });

  test("create has no idempotency: a retried create duplicates the draft", async () => {
    const first = await createDraft({ client_id: "same" });
    const second = await createDraft({ client_id: "same" });
    expect(first).not.toBe(second);
  });

  test("list shows live drafts only: not deleted, sent or rejected", async () => {
    const box = await makeMailbox(o.ctx, o.owner, "listing");
    const live = await createDraft({}, box.id);
    const deleted = await createDraft({}, box.id);
    const sent = await createDraft({}, box.id);
    expect((await req("DELETE", `/drafts/${deleted}`)).status).toBe(204);
    expect((await req("POST", `/drafts/${sent}/send`)).status).toBe(201);
    await updateMailboxSettings(o.ctx.sql, o.owner, box.id, { requireApproval: true });
    const pending = await createDraft({}, box.id);
    const rejected = await createDraft({}, box.id);
    expect((await req("POST", `/drafts/${pending}/send`)).status).toBe(202);
    expect((await req("POST", `/drafts/${rejected}/send`)).status).toBe(202);
    await rejectDraft(o.ctx.sql, operator, rejected);

    const response = await req("GET", `/drafts?mailbox_id=${box.id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["drafts"]);
    expect(response.body.drafts.map((d: { id: string }) => d.id).sort()).toEqual([live, pending].sort());
    for (const draft of response.body.drafts) expect(Object.keys(draft).sort()).toEqual(DRAFT_KEYS);
    expect(response.body.drafts.find((d: { id: string }) => d.id === pending).status).toBe("pending_approval");
  });

  test("list requires mailbox_id", async () => {
    const response = await req("GET", "/drafts");
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(["error"]);
  });
});

describe("edit and delete", () => {
  test("PATCH merges fields, keeps the rest, and moves updated_at", async () => {
    const id = await createDraft();
    const before = (await req("GET", `/drafts/${id}`)).body;
    await Bun.sleep(5);
    const response = await req("PATCH", `/drafts/${id}`, { text: "New text" });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(DRAFT_KEYS);
    expect(response.body).toMatchObject({ to: "alice@example.org", subject: "Draft subject", text: "New text", status: "draft" });
    expect(response.body.updated_at).not.toBe(before.updated_at);
    const retargeted = await req("PATCH", `/drafts/${id}`, { to: "Bob <bob@example.org>", subject: "New subject" });
    expect(retargeted.body).toMatchObject({ to: "bob@example.org", subject: "New subject", text: "New text" });
    const empty = await req("PATCH", `/drafts/${id}`);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ to: "bob@example.org", subject: "New subject", text: "New text" });
  });

  test("PATCH re-validates the recipient and refuses reply_to_message_id and unknown fields (400)", async () => {
    const id = await createDraft();
    for (const body of [
      { to: "a@example.org, b@example.org" },
      { to: "Team: a@example.org;" },
      { to: "not an address" },
      { to: "a@example.org\r\nBcc: e@evil.example" },
      { subject: "x\r\nBcc: e@evil.example" },
      { text: "" },
      { reply_to_message_id: "msg_x" },
      { reply_to_message_id: null },
      { status: "sent" },
    ]) {
      const response = await req("PATCH", `/drafts/${id}`, body);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual(["error"]);
    }
    expect((await req("GET", `/drafts/${id}`)).body).toMatchObject({
      to: "alice@example.org",
      subject: "Draft subject",
      text: "Draft text",
    });
  });

  test("DELETE is 204 with no content; afterwards the draft is 404 byte-identical to a missing id", async () => {
    const id = await createDraft();
    const deleted = await req("DELETE", `/drafts/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    const missing = await req("GET", "/drafts/drf_doesnotexist");
    expect(missing.status).toBe(404);
    expect(missing.text).toBe(NOT_FOUND);
    for (const [method, path] of [
      ["GET", `/drafts/${id}`],
      ["PATCH", `/drafts/${id}`],
      ["DELETE", `/drafts/${id}`],
      ["POST", `/drafts/${id}/send`],
    ] as const) {
      const response = await req(method, path, method === "PATCH" ? { text: "x" } : undefined);
      expect(response.status).toBe(404);
      expect(response.text).toBe(missing.text);
    }
  });
});

describe("send with approval off", () => {
  test("201 with id, draft_id, thread_id, provider_message_id; then tombstoned: 404 and 409 on edit/delete", async () => {
    const id = await createDraft({ subject: "Ship it", text: "Shipping the draft." });
    const thread = (await req("GET", `/drafts/${id}`)).body.thread_id;
    const atSink = o.sink.messages.length;
    const response = await req("POST", `/drafts/${id}/send`);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["draft_id", "id", "provider_message_id", "thread_id"]);
    expect(response.body).toMatchObject({ draft_id: id, thread_id: thread, provider_message_id: o.sink.messages.at(-1)!.queueId });
    expect(o.sink.messages.length).toBe(atSink + 1);
    const mail = await parseMail(o.sink.messages.at(-1)!.raw);
    expect(mail.subject).toBe("Ship it");
    expect(mail.text?.trim()).toBe("Shipping the draft.");

    const message = await req("GET", `/messages/${response.body.id}`);
    expect(message.body).toMatchObject({ direction: "out", to_addr: "alice@example.org", thread_id: thread });

    const get = await req("GET", `/drafts/${id}`);
    expect(get.status).toBe(404);
    expect(get.text).toBe(NOT_FOUND);
    const patch = await req("PATCH", `/drafts/${id}`, { text: "too late" });
    expect(patch.status).toBe(409);
    expect(patch.body).toEqual(CONFLICT);
    const del = await req("DELETE", `/drafts/${id}`);
    expect(del.status).toBe(409);
    expect(del.body).toEqual(CONFLICT);
    const again = await req("POST", `/drafts/${id}/send`);
    expect(again.status).toBe(404);
    expect(o.sink.messages.length).toBe(atSink + 1);
  });

  test("a draft without recipient is 422 until one is set", async () => {
    const originalId = await deliverInbound(o.ctx, o.mailbox.id, { subject: "No sender" });
    const [original] = await o.ctx.sql`select from_addr from messages where id = ${originalId}`;
    expect(original!.from_addr).toBe("");
    const created = await req("POST", "/drafts", { mailbox_id: o.mailbox.id, reply_to_message_id: originalId, text: "Who are you?" });
    expect(created.status).toBe(201);
    expect((await req("GET", `/drafts/${created.body.id}`)).body.to).toBeNull();
    const atSink = o.sink.messages.length;
    const response = await req("POST", `/drafts/${created.body.id}/send`);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ error: "draft has no recipient" });
    expect(await draftStatus(created.body.id)).toBe("draft");
    expect((await req("PATCH", `/drafts/${created.body.id}`, { to: "found@example.org" })).status).toBe(200);
    expect((await req("POST", `/drafts/${created.body.id}/send`)).status).toBe(201);
    expect(o.sink.messages.length).toBe(atSink + 1);
  });

  test("a suppressed recipient is 422 and a blocked one 403; the draft stays a draft", async () => {
    await addSuppression(o.ctx.sql, { accountId: o.owner.accountId, address: "suppressed@example.org", reason: "bounce" });
    const entry = await addSendListEntry(o.ctx.sql, { accountId: o.owner.accountId, kind: "block", pattern: "blocked.example" });
    const suppressed = await createDraft({ to: "suppressed@example.org" });
    const blocked = await createDraft({ to: "x@blocked.example" });
    const s = await req("POST", `/drafts/${suppressed}/send`);
    expect(s.status).toBe(422);
    expect(s.body).toEqual({ error: "recipient is suppressed (bounce, complaint or unsubscribe)" });
    const b = await req("POST", `/drafts/${blocked}/send`);
    expect(b.status).toBe(403);
    expect(b.body).toEqual({ code: "send_blocked_by_list", reason: "block_match", scope: "account", list_entry_id: entry.id });
    expect(await draftStatus(suppressed)).toBe("draft");
    expect(await draftStatus(blocked)).toBe("draft");
  });

  test("a permanent rejection (400) returns the draft to draft; fixed, it sends", async () => {
    const id = await createDraft();
    o.sink.mode = "reject550";
    const response = await req("POST", `/drafts/${id}/send`);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body).sort()).toEqual(["error", "retryable"]);
    expect(response.body.retryable).toBe(false);
    expect((await req("GET", `/drafts/${id}`)).body.status).toBe("draft");
    expect((await req("PATCH", `/drafts/${id}`, { to: "fixed@example.org" })).status).toBe(200);
    o.sink.mode = "accept";
    const retry = await req("POST", `/drafts/${id}/send`);
    expect(retry.status).toBe(201);
    expect(o.sink.messages.at(-1)!.to).toEqual(["fixed@example.org"]);
  });
});

describe("send with approval on", () => {
  test("202 pending_approval, again 202; the queued draft cannot be edited or deleted", async () => {
    const id = await createDraft({}, gated.id);
    const atSink = o.sink.messages.length;
    const first = await req("POST", `/drafts/${id}/send`);
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ draft_id: id, status: "pending_approval" });
    const second = await req("POST", `/drafts/${id}/send`);
    expect(second.status).toBe(202);
    expect(second.text).toBe(first.text);
    expect((await req("GET", `/drafts/${id}`)).body).toMatchObject({ status: "pending_approval", requires_human: true });
    const patch = await req("PATCH", `/drafts/${id}`, { text: "sneaky edit" });
    expect(patch.status).toBe(409);
    expect(patch.body).toEqual(CONFLICT);
    const del = await req("DELETE", `/drafts/${id}`);
    expect(del.status).toBe(409);
    expect(del.body).toEqual(CONFLICT);
    expect(o.sink.messages.length).toBe(atSink);
    expect((await req("GET", `/drafts/${id}`)).body.text).toBe("Draft text");
  });

  test("approval through the CLI sends it through the pipeline; the draft is then tombstoned", async () => {
    const id = await createDraft({ subject: "Needs a human", text: "Approved text." }, gated.id);
    expect((await req("POST", `/drafts/${id}/send`)).status).toBe(202);
    const pending = await cli(["draft", "pending", "--account", o.owner.accountId, "--json"]);
    expect(JSON.parse(pending.stdout).map((d: { id: string }) => d.id)).toContain(id);

    const atSink = o.sink.messages.length;
    const approved = await cli(["draft", "approve", id, "--by", "reviewer", "--json"]);
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    const result = JSON.parse(approved.stdout);
    expect(result).toMatchObject({ status: 201, draft_id: id });
    expect(o.sink.messages.length).toBe(atSink + 1);
    expect(result.provider_message_id).toBe(o.sink.messages.at(-1)!.queueId);
    const mail = await parseMail(o.sink.messages.at(-1)!.raw);
    expect(mail.subject).toBe("Needs a human");
    expect(mail.text?.trim()).toBe("Approved text.");
    expect((await req("GET", `/drafts/${id}`)).text).toBe(NOT_FOUND);
    const [row] = await o.ctx.sql`select status, decided_by, sent_message_id from drafts where id = ${id}`;
    expect(row).toEqual({ status: "sent", decided_by: "reviewer", sent_message_id: result.id });

    const twice = await cli(["draft", "approve", id]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("draft not found");
    expect(o.sink.messages.length).toBe(atSink + 1);
  }, 120_000); // three CLI processes, each started cold: seconds apiece on a loaded machine

  test("rejection tombstones the queued draft; it can no longer be approved", async () => {
    const id = await createDraft({}, gated.id);
    expect((await req("POST", `/drafts/${id}/send`)).status).toBe(202);
    const rejected = await cli(["draft", "reject", id, "--json"]);
    expect(rejected.code).toBe(0);
    expect((await req("GET", `/drafts/${id}`)).text).toBe(NOT_FOUND);
    expect((await req("GET", `/drafts?mailbox_id=${gated.id}`)).body.drafts.map((d: { id: string }) => d.id)).not.toContain(id);
    expect(await draftStatus(id)).toBe("rejected");
    expect(await refusal(approveDraft(o.ctx.svc, operator, id))).toMatchObject({ status: 404 });
    expect((await req("PATCH", `/drafts/${id}`, { text: "x" })).body).toEqual(CONFLICT);
  }, 120_000); // a CLI process started cold: seconds on a loaded machine

  test("only a queued draft can be approved or rejected (409 for a plain draft)", async () => {
    const id = await createDraft();
    expect(await refusal(approveDraft(o.ctx.svc, operator, id))).toMatchObject({ status: 409 });
    expect(await refusal(rejectDraft(o.ctx.sql, operator, id))).toMatchObject({ status: 409 });
    expect(await draftStatus(id)).toBe("draft");
  });

  test("a decider scoped to another account gets the missing draft's 404 and changes nothing", async () => {
    const id = await createDraft({}, gated.id);
    expect((await req("POST", `/drafts/${id}/send`)).status).toBe(202);
    const stranger = { accountId: (await makeAccount(o.ctx)).accountId, name: "stranger" };
    const atSink = o.sink.messages.length;
    for (const draftId of [id, "drf_zzzzzzzzzzzzzzzzzzzzzzzz"]) {
      expect(await refusal(approveDraft(o.ctx.svc, stranger, draftId))).toMatchObject({ status: 404, body: { error: "draft not found" } });
      expect(await refusal(rejectDraft(o.ctx.sql, stranger, draftId))).toMatchObject({ status: 404, body: { error: "draft not found" } });
    }
    expect(await draftStatus(id)).toBe("pending_approval");
    expect(o.sink.messages.length).toBe(atSink);
    await rejectDraft(o.ctx.sql, { accountId: o.owner.accountId, name: "owner" }, id);
    expect(await draftStatus(id)).toBe("rejected");
  });

  test("POST /send on a require_approval mailbox answers 202 with a forced draft", async () => {
    const atSink = o.sink.messages.length;
    const response = await o.send({ mailbox_id: gated.id, to: "yara@example.org", subject: "Forced", text: "Held for a human." });
    expect(response.status).toBe(202);
    expect(Object.keys(response.body).sort()).toEqual(["draft_id", "status"]);
    expect(response.body.status).toBe("pending_approval");
    const draft = await req("GET", `/drafts/${response.body.draft_id}`);
    expect(draft.body).toMatchObject({
      mailbox_id: gated.id,
      status: "pending_approval",
      requires_human: true,
      to: "yara@example.org",
      subject: "Forced",
      text: "Held for a human.",
    });
    expect(o.sink.messages.length).toBe(atSink);

    const approved = await approveDraft(o.ctx.svc, operator, response.body.draft_id);
    expect(approved.kind).toBe("sent");
    expect(o.sink.messages.length).toBe(atSink + 1);
    expect(o.sink.messages.at(-1)!.to).toEqual(["yara@example.org"]);
  });
});

describe("sending left for reconciliation", () => {
  test("transient failure: 502, the draft stays sending (409 on edit/delete/send) and the reconcile task redelivers it", async () => {
    const id = await createDraft({ text: "Try again later." });
    o.sink.mode = "defer451";
    const response = await req("POST", `/drafts/${id}/send`);
    expect(response.status).toBe(502);
    expect(response.body.retryable).toBe(true);
    expect((await req("GET", `/drafts/${id}`)).body.status).toBe("sending");
    expect((await req("PATCH", `/drafts/${id}`, { text: "x" })).body).toEqual(CONFLICT);
    expect((await req("DELETE", `/drafts/${id}`)).body).toEqual(CONFLICT);
    expect((await req("POST", `/drafts/${id}/send`)).body).toEqual(CONFLICT);

    o.sink.mode = "accept";
    const atSink = o.sink.messages.length;
    await runWorkerUntil(o.ctx, async () => (await draftStatus(id)) === "sent", "the reconcile task to redeliver the draft");
    expect(o.sink.messages.length).toBe(atSink + 1);
    expect((await parseMail(o.sink.messages.at(-1)!.raw)).text?.trim()).toBe("Try again later.");
    expect((await req("GET", `/drafts/${id}`)).text).toBe(NOT_FOUND);
    const [message] = await o.ctx.sql`select id, delivery_status, delivery_attempts from messages where draft_id = ${id}`;
    expect(message).toMatchObject({ delivery_status: "sent", delivery_attempts: 2 });
    expect((await req("GET", `/messages/${message!.id}`)).status).toBe(200);
  }, 90_000); // the real worker starts and runs its jobs: seconds on a loaded machine

  test("transient failures past DELIVERY_RETRY_LIMIT give the draft back as a draft", async () => {
    const id = await createDraft();
    o.sink.mode = "defer451";
    expect((await req("POST", `/drafts/${id}/send`)).status).toBe(502);
    await runWorkerUntil(o.ctx, async () => (await draftStatus(id)) === "draft", "the reconcile task to give up");
    expect((await req("GET", `/drafts/${id}`)).body.status).toBe("draft");
    const [row] = await o.ctx.sql`select count(*)::int as n from messages where draft_id = ${id}`;
    expect(row!.n).toBe(0);
    o.sink.mode = "accept";
    expect((await req("POST", `/drafts/${id}/send`)).status).toBe(201);
  }, 90_000); // the real worker starts and runs its jobs: seconds on a loaded machine

  test("unknown outcome: 502 delivery_outcome_unknown, the draft stays sending, then goes back to draft with the doubt, never sent", async () => {
    const id = await createDraft({ text: "Did it arrive?" });
    o.sink.mode = "drop-after-data";
    const atSink = o.sink.messages.length;
    const response = await req("POST", `/drafts/${id}/send`);
    expect(response.status).toBe(502);
    expect(response.body.code).toBe("delivery_outcome_unknown");
    expect((await req("GET", `/drafts/${id}`)).body.status).toBe("sending");
    o.sink.mode = "accept";
    await runWorkerUntil(o.ctx, async () => (await draftStatus(id)) === "draft", "the reconcile task to give the draft back");
    const [draft] = await o.ctx.sql`select last_error, sent_message_id from drafts where id = ${id}`;
    expect(draft!.last_error).toContain("delivery outcome unknown");
    expect(draft!.sent_message_id).toBeNull();
    // Nothing was sent again: whether to send it again is the author's call.
    expect(o.sink.messages.length).toBe(atSink + 1);
  }, 90_000); // the real worker starts and runs its jobs: seconds on a loaded machine
});

describe("races", () => {
  test("send and delete at once: exactly one wins", async () => {
    for (let round = 0; round < 8; round++) {
      const id = await createDraft({ text: `race ${round}` });
      const atSink = o.sink.messages.length;
      const [send, del] = await Promise.all([req("POST", `/drafts/${id}/send`), req("DELETE", `/drafts/${id}`)]);
      const winners = [send.status === 201, del.status === 204].filter(Boolean);
      expect(winners).toHaveLength(1);
      if (send.status === 201) {
        expect(del.status).toBe(409);
        expect(del.body).toEqual(CONFLICT);
        expect(o.sink.messages.length).toBe(atSink + 1);
      } else {
        expect([404, 409]).toContain(send.status);
        if (send.status === 409) expect(send.body).toEqual(CONFLICT);
        expect(o.sink.messages.length).toBe(atSink);
      }
    }
  });

  test("two sends at once deliver once", async () => {
    const id = await createDraft();
    const atSink = o.sink.messages.length;
    const responses = await Promise.all([1, 2, 3].map(() => req("POST", `/drafts/${id}/send`)));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    // A loser sees the draft mid-send (409) or, if the winner already finished, tombstoned (404).
    for (const r of responses.filter((r) => r.status !== 201)) {
      if (r.status === 404) expect(r.text).toBe(NOT_FOUND);
      else expect(r.body).toEqual(CONFLICT);
    }
    expect(o.sink.messages.length).toBe(atSink + 1);
  });

  test("a delete that lands while a send is under way: exactly one wins, and the outcome is consistent", async () => {
    const id = await createDraft();
    const atSink = o.sink.messages.length;
    let del: Awaited<ReturnType<typeof req>> | null = null;
    const send = await withSendHeldAtQuota(
      o.ctx,
      o.owner.accountId,
      () => req("POST", `/drafts/${id}/send`),
      async () => {
        del = await req("DELETE", `/drafts/${id}`);
      },
    );
    if (del!.status === 204) {
      // The delete got the draft first: the send is refused and nothing leaves.
      expect({ status: send.status, body: send.body }).toEqual({ status: 409, body: CONFLICT });
      expect(o.sink.messages.length).toBe(atSink);
    } else {
      // The send had claimed the draft: the delete is refused and the mail went out once.
      expect({ status: del!.status, body: del!.body }).toEqual({ status: 409, body: CONFLICT });
      expect(send.status).toBe(201);
      expect(o.sink.messages.length).toBe(atSink + 1);
    }
  });

  test("an edit answered 200 while a send is under way is in the mail that goes out (or the edit is refused)", async () => {
    const id = await createDraft({ to: "before@example.org", text: "before the edit" });
    const atSink = o.sink.messages.length;
    let patch: Awaited<ReturnType<typeof req>> | null = null;
    const send = await withSendHeldAtQuota(
      o.ctx,
      o.owner.accountId,
      () => req("POST", `/drafts/${id}/send`),
      async () => {
        patch = await req("PATCH", `/drafts/${id}`, { to: "after@example.org", text: "after the edit" });
      },
    );
    expect(send.status).toBe(201);
    expect(o.sink.messages.length).toBe(atSink + 1);
    const delivered = o.sink.messages.at(-1)!;
    if (patch!.status === 200) {
      // The client was told its edit took: the message that went out must be the edited one.
      expect(delivered.to).toEqual(["after@example.org"]);
      expect((await parseMail(delivered.raw)).text?.trim()).toBe("after the edit");
    } else {
      expect(patch!.body).toEqual(CONFLICT);
    }
  });

  test("an edit to a suppressed recipient landing while a send is under way never delivers to it", async () => {
    await addSuppression(o.ctx.sql, { accountId: o.owner.accountId, address: "opted-out@example.org", reason: "unsubscribe" });
    const id = await createDraft({ to: "fine@example.org" });
    const atSink = o.sink.messages.length;
    const send = await withSendHeldAtQuota(
      o.ctx,
      o.owner.accountId,
      () => req("POST", `/drafts/${id}/send`),
      async () => {
        await req("PATCH", `/drafts/${id}`, { to: "opted-out@example.org" });
      },
    );
    const delivered = o.sink.messages.slice(atSink).flatMap((m) => m.to);
    expect(delivered).not.toContain("opted-out@example.org");
    if (send.status !== 201) expect([409, 422]).toContain(send.status);
  });

  test("edits racing a send: the mail that went out is the draft as finally stored", async () => {
    for (let round = 0; round < 5; round++) {
      const id = await createDraft({ text: "v0" });
      const atSink = o.sink.messages.length;
      const results = await Promise.all([
        req("POST", `/drafts/${id}/send`),
        ...[1, 2, 3].map((v) => req("PATCH", `/drafts/${id}`, { text: `v${v}` })),
      ]);
      const [send, ...patches] = results;
      expect(send!.status).toBe(201);
      for (const p of patches) expect([200, 409]).toContain(p.status);
      expect(o.sink.messages.length).toBe(atSink + 1);
      const [stored] = await o.ctx.sql`select text from drafts where id = ${id}`;
      expect((await parseMail(o.sink.messages.at(-1)!.raw)).text?.trim()).toBe(stored!.text);
    }
  });
});
