// Bodies above BLOB_STORE_BODY_THRESHOLD in the object store, against a real S3-protocol server
// (s3rver, test/support/s3-server.ts): the row keeps a prefix of the threshold's size, the API,
// MCP and threads return the whole body byte for byte (the same as a copy stored without the
// store), lists and search work from the prefix, a store down at read time is a 503, retention
// deletes the objects, the move command carries bodies to the store and back, and a forward
// carries the whole text.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { moveBodies, utf8Prefix } from "../../src/core/body-objects.ts";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { replyText } from "../../src/mail/reply-text.ts";
import { startWorker } from "../../worker/runner.ts";
import { purgeExpiredContentTask } from "../../worker/tasks/purge_expired_content.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxRow } from "../support/mailbox-row.ts";
import { type S3Server, startS3Server } from "../support/s3-server.ts";
import { deliverRaw, reusableDataDir, servicesWith, waitFor } from "../support/smtp-client.ts";

// Screening a 200 KiB body takes its time on a loaded machine; no test here measures it.
setDefaultTimeout(600_000);

const BUCKET = "bodies";
const THRESHOLD = 65_536;
let s3: S3Server;
let ctx: TestContext;
let smtp: SmtpListener;
let owner: Fixture;
let mcpKey: string;
let inbox: { id: string; address: string };
let plainInbox: { id: string; address: string };
const object = (key: string) => s3.object(key);
const encoder = new TextEncoder();

beforeAll(async () => {
  s3 = await startS3Server(BUCKET);
  // body_clean is cut at BODY_CLEAN_MAX_CHARS (50,000 by default): raised so that it, too, is long.
  ctx = await makeTestContext({
    DATA_DIR: reusableDataDir,
    BLOB_STORE_URL: s3.url,
    BODY_CLEAN_MAX_CHARS: "1000000",
  });
  smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  owner = await makeAccount(ctx);
  mcpKey = await makeKey(ctx, { accountId: owner.accountId, scope: "mcp" });
  inbox = await makeMailbox(ctx, owner, "long-bodies");
  plainInbox = await makeMailbox(ctx, owner, "long-bodies-plain");
});

afterAll(async () => {
  await smtp.close();
  await ctx.close();
  await s3.close();
});

/** A plain-text mail of about 200 KiB with two- to four-byte characters throughout, so cuts fall inside them. */
function longMail(to: string, subject: string, tail: string): string {
  const lines: string[] = ["openingword: the quarterly report follows."];
  // Measured with the line breaks the parsed text has (LF).
  for (let i = 0; encoder.encode(lines.join("\n")).byteLength < 200 * 1024; i++) {
    lines.push(`Line ${String(i).padStart(5, "0")}: naïve café ☕ 𝄞 señal große Ärger — ${"x".repeat(i % 37)}`);
  }
  lines.push(tail);
  return [
    "From: Lee <lee@example.org>",
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${crypto.randomUUID()}@example.org>`,
    "Date: Tue, 24 Nov 2026 10:00:00 +0000",
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 8bit",
    "",
    ...lines,
    "",
  ].join("\r\n");
}

async function row(id: string) {
  const [message] = await ctx.sql`
    select body_raw, body_clean, octet_length(body_raw) as raw_bytes, octet_length(body_clean) as clean_bytes,
      body_raw_key, body_raw_sha256, body_clean_key, body_clean_sha256, processed_at
    from messages where id = ${id}`;
  return message!;
}

async function messageIdOf(subject: string, mailboxId: string): Promise<string> {
  const [message] = await ctx.sql`select id from messages where subject = ${subject} and mailbox_id = ${mailboxId}`;
  return message!.id;
}

/** The same mail stored without the store: what every reader must return for the stored one too. */
async function storedWithoutStore(raw: string): Promise<string> {
  const [id] = await acceptInbound(
    servicesWith(ctx, { BODY_CLEAN_MAX_CHARS: "1000000" }),
    Buffer.from(raw),
    [(await mailboxRow(ctx, plainInbox.id))!],
    { remoteIp: null, helo: null, mailFrom: null },
  );
  return id!;
}

async function mcp(name: string, args: Record<string, unknown>) {
  const response = await ctx.request("POST", "/mcp", {
    key: mcpKey,
    headers: { accept: "application/json, text/event-stream" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
  });
  expect(response.status).toBe(200);
  return response.body.result as { isError?: boolean; structuredContent: any };
}

async function screened(id: string): Promise<void> {
  const worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  try {
    await waitFor(async () => (await row(id)).processed_at, "screening", 300_000);
  } finally {
    await worker.stop();
  }
}

test("the prefix is cut at a character boundary", () => {
  const bytes = encoder.encode("a€𝄞b");
  expect(utf8Prefix(bytes, 1)).toBe("a");
  expect(utf8Prefix(bytes, 3)).toBe("a");
  expect(utf8Prefix(bytes, 4)).toBe("a€");
  expect(utf8Prefix(bytes, 7)).toBe("a€");
  expect(utf8Prefix(bytes, 8)).toBe("a€𝄞");
  expect(utf8Prefix(bytes, 9)).toBe("a€𝄞b");
});

let storedId: string;
let plainId: string;

test("a 200 KiB body: the row keeps a prefix, the store the whole, and the API, MCP and threads return it byte for byte", async () => {
  const raw = longMail(inbox.address, "long body", "tailonlyword: signed, Lee.");
  const reply = await deliverRaw(smtp.port, { from: "lee@example.org", to: [inbox.address] }, encoder.encode(raw));
  expect(reply.data?.code).toBe(250);
  storedId = await messageIdOf("long body", inbox.id);
  plainId = await storedWithoutStore(raw);

  const expected = (await ctx.request("GET", `/api/v1/messages/${plainId}`, { key: owner.key })).body;
  expect(encoder.encode(expected.body_raw).byteLength).toBeGreaterThan(200 * 1024);
  expect(expected.body_raw).toContain("tailonlyword: signed, Lee.");
  expect(expected.body_clean).toContain("tailonlyword: signed, Lee.");
  // Without the store the row holds the whole body.
  expect(await row(plainId)).toMatchObject({ body_raw_key: null, body_clean_key: null });

  const stored = await row(storedId);
  expect(stored).toMatchObject({ body_raw_key: `body/${storedId}/raw`, body_clean_key: `body/${storedId}/clean` });
  for (const part of ["raw", "clean"] as const) {
    const whole: string = part === "raw" ? expected.body_raw : expected.body_clean;
    const kept: string = stored[`body_${part}`];
    expect(stored[`${part}_bytes`]).toBeLessThanOrEqual(THRESHOLD);
    expect(stored[`${part}_bytes`]).toBeGreaterThan(THRESHOLD - 4);
    expect(whole.startsWith(kept)).toBe(true);
    expect(kept).not.toContain("tailonlyword");
    const bytes = new Uint8Array(await (await object(stored[`body_${part}_key`])).arrayBuffer());
    expect(new TextDecoder().decode(bytes)).toBe(whole);
    expect(new Bun.CryptoHasher("sha256").update(bytes).digest("hex")).toBe(stored[`body_${part}_sha256`]);
  }

  const viaApi = (await ctx.request("GET", `/api/v1/messages/${storedId}`, { key: owner.key })).body;
  expect(viaApi.body_raw).toBe(expected.body_raw);
  expect(viaApi.body_clean).toBe(expected.body_clean);
  expect(Object.keys(viaApi).sort()).toEqual(Object.keys(expected).sort());
  const viaMcp = await mcp("get_message", { id: storedId, include_raw: true });
  expect(viaMcp.isError).toBeFalsy();
  expect(viaMcp.structuredContent.body_raw).toBe(expected.body_raw);
  expect(viaMcp.structuredContent.body_clean).toBe(expected.body_clean);

  const thread = (await ctx.request("GET", `/api/v1/threads/${viaApi.thread_id}`, { key: owner.key })).body;
  expect(thread.messages[0].body_clean).toBe(expected.body_clean);

  // Screening reads the whole body: the reply text it records runs to the end.
  await screened(storedId);
  const [screenedRow] = await ctx.sql`select reply_text from messages where id = ${storedId}`;
  expect(screenedRow!.reply_text).toBe(replyText({ bodyClean: expected.body_clean, bodyRaw: expected.body_raw, maxChars: 1_000_000 }));
  expect(screenedRow!.reply_text).toContain("tailonlyword");
});

test("lists and search work from the prefix, even with the store down; a whole-body read is then a 503", async () => {
  const listed = async () =>
    (await ctx.request("GET", `/api/v1/messages?mailbox_id=${inbox.id}`, { key: owner.key })).body.messages.map(
      (m: { id: string }) => m.id,
    );
  const found = async (q: string) =>
    (await ctx.request("GET", `/api/v1/search?mailbox_id=${inbox.id}&q=${q}`, { key: owner.key })).body.results.map(
      (m: { id: string }) => m.id,
    );
  expect(await listed()).toContain(storedId);
  expect(await found("openingword")).toContain(storedId);
  // Past the prefix the search document does not reach (docs/scaling.md).
  expect(await found("tailonlyword")).not.toContain(storedId);

  await s3.stop();
  try {
    expect(await listed()).toContain(storedId);
    expect(await found("openingword")).toContain(storedId);
    const direct = await ctx.request("GET", `/api/v1/messages/${storedId}`, { key: owner.key });
    expect(direct.status).toBe(503);
    expect(direct.body.error).toContain("object store");
    const thread = await ctx.request(
      "GET",
      `/api/v1/threads/${(await ctx.sql`select thread_id from messages where id = ${storedId}`)[0]!.thread_id}`,
      {
        key: owner.key,
      },
    );
    expect(thread.status).toBe(503);
    const viaMcp = await mcp("get_message", { id: storedId });
    expect(viaMcp.isError).toBe(true);
    expect(viaMcp.structuredContent.status).toBe(503);
    // A message whose bodies fit its row does not need the store.
    expect((await ctx.request("GET", `/api/v1/messages/${plainId}`, { key: owner.key })).status).toBe(200);
  } finally {
    await s3.restart();
  }
  expect((await ctx.request("GET", `/api/v1/messages/${storedId}`, { key: owner.key })).status).toBe(200);
});

test("content move: bodies go to the store and back, resumably, and readers never notice", async () => {
  const before = (await ctx.request("GET", `/api/v1/messages/${plainId}`, { key: owner.key })).body;
  expect(await moveBodies(ctx.svc, "to-store", { limit: 1 })).toBe(1);
  const moved = await row(plainId);
  expect(moved).toMatchObject({ body_raw_key: `body/${plainId}/raw`, body_clean_key: `body/${plainId}/clean` });
  expect(moved.raw_bytes).toBeLessThanOrEqual(THRESHOLD);
  expect((await object(moved.body_raw_key)).status).toBe(200);
  expect((await ctx.request("GET", `/api/v1/messages/${plainId}`, { key: owner.key })).body).toEqual(before);
  expect(await moveBodies(ctx.svc, "to-store")).toBe(0);

  expect(await moveBodies(ctx.svc, "to-database")).toBe(2);
  for (const id of [plainId, storedId]) {
    const back = await row(id);
    expect(back).toMatchObject({ body_raw_key: null, body_raw_sha256: null, body_clean_key: null, body_clean_sha256: null });
    expect(back.raw_bytes).toBeGreaterThan(200 * 1024);
    expect((await object(`body/${id}/raw`)).status).toBe(404);
    expect((await object(`body/${id}/clean`)).status).toBe(404);
  }
  expect((await ctx.request("GET", `/api/v1/messages/${plainId}`, { key: owner.key })).body).toEqual(before);
  expect((await ctx.request("GET", `/api/v1/messages/${storedId}`, { key: owner.key })).body.body_raw).toBe(before.body_raw);
  expect(await moveBodies(ctx.svc, "to-store")).toBe(2);
});

test("retention deletes the body objects with the content", async () => {
  const raw = longMail(inbox.address, "long and expiring", "gone after a day");
  expect((await deliverRaw(smtp.port, { from: "lee@example.org", to: [inbox.address] }, encoder.encode(raw))).data?.code).toBe(250);
  const id = await messageIdOf("long and expiring", inbox.id);
  // Retention empties only screened mail; screening itself is the test above.
  await ctx.sql`update messages set processed_at = now() where id = ${id}`;
  const keys = [`body/${id}/raw`, `body/${id}/clean`];
  for (const key of keys) expect((await object(key)).status).toBe(200);
  await ctx.sql`update accounts set retention_days = 1 where id = ${owner.accountId}`;
  await ctx.sql`update messages set created_at = now() - interval '2 days' where id = ${id}`;
  try {
    await purgeExpiredContentTask(ctx.svc);
  } finally {
    await ctx.sql`update accounts set retention_days = null where id = ${owner.accountId}`;
  }
  for (const key of keys) expect((await object(key)).status).toBe(404);
  expect(await row(id)).toMatchObject({ body_raw: null, body_clean: null, body_raw_key: null, body_clean_key: null });
  expect(await ctx.sql`select key from blob_deletions`).toHaveLength(0);
});

test("forwarding a long body forwards all of it, read from the store", async () => {
  const original = (await ctx.request("GET", `/api/v1/messages/${storedId}`, { key: owner.key })).body;
  // To one of our own mailboxes: the local transport delivers it through the same accept path.
  const sent = await ctx.request("POST", `/api/v1/messages/${storedId}/forward`, {
    key: owner.key,
    body: { to: plainInbox.address, text: "For the record." },
  });
  expect(sent.status).toBe(201);
  const forwarded = (await ctx.request("GET", `/api/v1/messages/${sent.body.id}`, { key: owner.key })).body;
  expect(forwarded.body_clean).toContain("For the record.");
  expect(forwarded.body_clean).toContain(original.body_clean);
});
