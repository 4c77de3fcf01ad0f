// Message content in object storage (BLOB_STORE_URL) against a real S3-protocol server: s3rver
// (npm, a dev dependency) started in this process, speaking S3's REST API with SigV4. Raw messages
// and attachments go to the store before the 250 and are read back by the API, the dashboard's
// original view and the screening job; a store that is down makes the listener answer 4xx
// (nothing lost) and a read answer 503 (not 500); retention deletes the objects; and the move
// command carries existing content to the store and back.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { moveContent } from "../../src/core/content.ts";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { rawMessage } from "../../src/dashboard/mail-queries.ts";
import { purgeExpiredContentTask } from "../../worker/tasks/purge_expired_content.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxRow } from "../support/mailbox-row.ts";
import { closedPort, runWorkerUntil } from "../support/outbound.ts";
import { refusal } from "../support/refusal.ts";
import { type S3Server, startS3Server } from "../support/s3-server.ts";
import { deliverRaw, reusableDataDir, servicesWith } from "../support/smtp-client.ts";

const BUCKET = "mail";
let s3: S3Server;
let ctx: TestContext;
let smtp: SmtpListener;
let owner: Fixture;
let inbox: { id: string; address: string };
const object = (key: string) => s3.object(key);

beforeAll(async () => {
  s3 = await startS3Server(BUCKET);
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir, BLOB_STORE_URL: s3.url });
  smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  owner = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "stored");
});

afterAll(async () => {
  await smtp.close();
  await ctx.close();
  await s3.close();
});

function mail(subject: string, attachment: string): string {
  return [
    "From: Lee <lee@example.org>",
    `To: ${inbox.address}`,
    `Subject: ${subject}`,
    `Message-ID: <${crypto.randomUUID()}@example.org>`,
    "Date: Tue, 24 Nov 2026 10:00:00 +0000",
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b1"',
    "",
    "--b1",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "The notes are attached.",
    "--b1",
    'Content-Type: text/plain; name="notes.txt"',
    'Content-Disposition: attachment; filename="notes.txt"',
    "",
    attachment,
    "--b1--",
    "",
  ].join("\r\n");
}

async function rows(subject: string) {
  const [message] = await ctx.sql`
    select m.id, m.raw_message_id, r.content as raw_content, r.blob_key as raw_key
    from messages m join raw_messages r on r.id = m.raw_message_id where m.subject = ${subject}`;
  const attachments = message ? await ctx.sql`select id, content, blob_key from attachments where message_id = ${message.id}` : [];
  return { message, attachments };
}

test("accepted into the store: the rows name objects, the bytes are there, and every reader gets them back", async () => {
  const raw = mail("in the store", "Meeting notes: budget approved.");
  const reply = await deliverRaw(smtp.port, { from: "lee@example.org", to: [inbox.address] }, raw);
  expect(reply.data?.code).toBe(250);
  const { message, attachments } = await rows("in the store");
  expect(message).toMatchObject({ raw_content: null, raw_key: `raw/${message!.raw_message_id}` });
  expect(attachments).toHaveLength(1);
  expect(attachments[0]).toMatchObject({ content: null, blob_key: `att/${attachments[0]!.id}` });
  // The object holds the exact bytes the sender sent.
  expect(await (await object(message!.raw_key)).text()).toBe(raw);

  // The API, the dashboard's original view, and the screening job read them back.
  const download = await ctx.request("GET", `/api/v1/messages/${message!.id}/attachments/${attachments[0]!.id}`, { key: owner.key });
  expect(download.status).toBe(200);
  expect(download.text).toBe("Meeting notes: budget approved.");
  expect(new TextDecoder().decode(await rawMessage(ctx.svc, owner.accountId, message!.id))).toBe(raw);
  await runWorkerUntil(
    ctx,
    async () => (await ctx.sql`select processed_at from messages where id = ${message!.id}`)[0]!.processed_at,
    "screening",
  );
  const [read] = await ctx.sql`select text_status, text from attachments where id = ${attachments[0]!.id}`;
  expect(read!.text).toContain("budget approved");
});

test("the store down at accept time: 451 and nothing stored; the sender's retry is stored once it is back", async () => {
  const down = servicesWith(ctx, { BLOB_STORE_URL: s3.urlAt(await closedPort()) });
  const listener = await startSmtpListener(down, { port: 0, host: "127.0.0.1" });
  try {
    const raw = mail("store down at accept", "Kept until the store is back.");
    const reply = await deliverRaw(listener.port, { from: "lee@example.org", to: [inbox.address] }, raw);
    expect(reply.data?.code).toBe(451);
    expect((await rows("store down at accept")).message).toBeUndefined();
    // The MTA retries (here to the listener whose store answers): stored, once.
    expect((await deliverRaw(smtp.port, { from: "lee@example.org", to: [inbox.address] }, raw)).data?.code).toBe(250);
    const { message } = await rows("store down at accept");
    expect(await (await object(message!.raw_key)).text()).toBe(raw);
  } finally {
    await listener.close();
  }
});

test("content move: existing content goes to the store and back, resumably, and readers never notice", async () => {
  // Mail stored while the service ran without a store: its bytes are in PostgreSQL.
  const plain = servicesWith(ctx, {});
  const raw = mail("moved around", "Moved and moved back.");
  const mailbox = (await mailboxRow(ctx, inbox.id))!;
  const [id] = await acceptInbound(plain, Buffer.from(raw), [mailbox], { remoteIp: null, helo: null, mailFrom: null });
  const before = await rows("moved around");
  expect(before.message!.raw_key).toBeNull();
  const attachmentId = before.attachments[0]!.id;
  const readAttachment = async () =>
    (await ctx.request("GET", `/api/v1/messages/${id}/attachments/${attachmentId}`, { key: owner.key })).text;

  // One row, then the rest: a stopped run is resumed by running it again.
  expect(await moveContent(ctx.svc, "to-store", { limit: 1 })).toMatchObject({ raw_messages: 1, attachments: 0 });
  const rest = await moveContent(ctx.svc, "to-store");
  expect(rest.raw_messages + rest.attachments).toBeGreaterThanOrEqual(1);
  const moved = await rows("moved around");
  expect(moved.message).toMatchObject({ raw_content: null, raw_key: `raw/${moved.message!.raw_message_id}` });
  expect(moved.attachments[0]!.blob_key).toBe(`att/${attachmentId}`);
  expect(await readAttachment()).toBe("Moved and moved back.");
  expect(await moveContent(ctx.svc, "to-store")).toMatchObject({ raw_messages: 0, attachments: 0 });

  const back = await moveContent(ctx.svc, "to-database");
  expect(back.raw_messages).toBeGreaterThanOrEqual(1);
  const restored = await rows("moved around");
  expect(restored.message!.raw_key).toBeNull();
  expect(new TextDecoder().decode(restored.message!.raw_content)).toBe(raw);
  expect(await readAttachment()).toBe("Moved and moved back.");
  expect((await object(moved.message!.raw_key)).status).toBe(404);
  // And to the store again, for the tests after this one.
  await moveContent(ctx.svc, "to-store");
});

test("retention removes the objects with the content", async () => {
  const raw = mail("expiring", "Gone after a day.");
  expect((await deliverRaw(smtp.port, { from: "lee@example.org", to: [inbox.address] }, raw)).data?.code).toBe(250);
  const { message, attachments } = await rows("expiring");
  await runWorkerUntil(
    ctx,
    async () => (await ctx.sql`select processed_at from messages where id = ${message!.id}`)[0]!.processed_at,
    "screening",
  );
  expect((await object(message!.raw_key)).status).toBe(200);
  await ctx.sql`update accounts set retention_days = 1 where id = ${owner.accountId}`;
  await ctx.sql`update messages set created_at = now() - interval '2 days' where id = ${message!.id}`;
  await purgeExpiredContentTask(ctx.svc);
  expect((await object(message!.raw_key)).status).toBe(404);
  expect((await object(attachments[0]!.blob_key)).status).toBe(404);
  expect(await ctx.sql`select key from blob_deletions`).toHaveLength(0);
  await ctx.sql`update accounts set retention_days = null where id = ${owner.accountId}`;
});

test("the store down at read time: 503 with a clear error, never 500", async () => {
  const raw = mail("store down at read", "Unreadable for a while.");
  expect((await deliverRaw(smtp.port, { from: "lee@example.org", to: [inbox.address] }, raw)).data?.code).toBe(250);
  const { message, attachments } = await rows("store down at read");
  await s3.stop();
  const path = `/api/v1/messages/${message!.id}/attachments/${attachments[0]!.id}`;
  const response = await ctx.request("GET", path, { key: owner.key });
  expect(response.status).toBe(503);
  expect(response.body.error).toContain("object store");
  // The dashboard's original view says the same as a page (a 503, not its 500 page).
  expect(await refusal(rawMessage(ctx.svc, owner.accountId, message!.id))).toMatchObject({ status: 503 });
  // Back up: the same read works.
  await s3.restart();
  expect((await ctx.request("GET", path, { key: owner.key })).text).toBe("Unreadable for a while.");
});
