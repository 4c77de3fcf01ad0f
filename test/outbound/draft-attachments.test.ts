// Attachments on drafts: upload, attach by reference, list, remove, and send. The bytes that reach
// the SMTP sink are the bytes uploaded (SHA-256 of the parsed MIME parts); limits, the content-type
// check against magic numbers, the draft's edit rule, and the security rules of every draft route.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { Document, Packer, Paragraph } from "docx";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { updateMailboxSettings } from "../../src/core/mailboxes.ts";
import { approveDraft } from "../../src/core/outbound/drafts.ts";
import { makeAccount, makeKey, makeMailbox } from "../support/context.ts";
import { mime, receive } from "../support/mail-fixtures.ts";
import { type Outbound, parseMail, startOutbound } from "../support/outbound.ts";

setDefaultTimeout(30_000);

let o: Outbound;
let pdf: Uint8Array;
let docx: Uint8Array;
const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
]);
const sha = (bytes: Uint8Array | Buffer) => createHash("sha256").update(bytes).digest("hex");

beforeAll(async () => {
  o = await startOutbound({ ATTACHMENT_MAX_COUNT: "3", ATTACHMENT_MAX_BYTES: String(200 * 1024) });
  const document = await PDFDocument.create();
  const page = document.addPage();
  page.drawText("Invoice 2024-117: 1,250.00 EUR", { font: await document.embedFont(StandardFonts.Helvetica), x: 50, y: 700 });
  pdf = await document.save();
  docx = new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph("Contract draft")] }] })));
});

afterAll(async () => {
  await o.close();
});

const req = (method: string, path: string, body?: unknown, key = o.owner.key) => o.ctx.request(method, `/api/v1${path}`, { key, body });

export async function upload(
  draftId: string,
  file: { name: string; type?: string; content: Uint8Array | string } | null,
  key = o.owner.key,
  extra?: (form: FormData) => void,
) {
  const form = new FormData();
  if (file) form.append("file", new File([file.content as BlobPart], file.name, file.type === undefined ? {} : { type: file.type }));
  extra?.(form);
  const response = await o.ctx.app.handle(
    new Request(`http://localhost/api/v1/drafts/${draftId}/attachments`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form,
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function newDraft(mailboxId = o.mailbox.id, key = o.owner.key): Promise<string> {
  const response = await req(
    "POST",
    "/drafts",
    { mailbox_id: mailboxId, to: "bob@example.org", subject: "Papers", text: "Both attached." },
    key,
  );
  expect(response.status).toBe(201);
  return response.body.id;
}

describe("sending a draft with attachments", () => {
  test("a PDF and a DOCX arrive at the sink byte for byte", async () => {
    const draftId = await newDraft();
    const first = await upload(draftId, { name: "invoice.pdf", type: "application/pdf", content: pdf });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      draft_id: draftId,
      filename: "invoice.pdf",
      content_type: "application/pdf",
      size: pdf.byteLength,
      sha256: sha(pdf),
    });
    expect(first.body.id).toStartWith("dat_");
    // No declared type: the bytes name it.
    const second = await upload(draftId, { name: "contract.docx", content: docx });
    expect(second.status).toBe(201);
    expect(second.body.content_type).toBe(DOCX_TYPE);

    const listed = await req("GET", `/drafts/${draftId}/attachments`);
    expect(listed.status).toBe(200);
    expect(listed.body.attachments.map((a: { filename: string }) => a.filename)).toEqual(["invoice.pdf", "contract.docx"]);

    const before = o.sink.messages.length;
    const sent = await req("POST", `/drafts/${draftId}/send`);
    expect(sent.status).toBe(201);
    expect(o.sink.messages.length).toBe(before + 1);
    const parsed = await parseMail(o.sink.messages.at(-1)!.raw);
    expect(parsed.text?.trim()).toBe("Both attached.");
    expect(parsed.attachments.map((a) => [a.filename, a.contentType, sha(a.content)])).toEqual([
      ["invoice.pdf", "application/pdf", sha(pdf)],
      ["contract.docx", DOCX_TYPE, sha(docx)],
    ]);

    // The sent message lists what it carried, as received mail does.
    const message = await req("GET", `/messages/${sent.body.id}`);
    const stored = message.body.attachments.map((a: { filename: string; sha256: string }) => [a.filename, a.sha256]);
    expect(stored.sort()).toEqual([
      ["contract.docx", sha(docx)],
      ["invoice.pdf", sha(pdf)],
    ]);
    // A sent draft is gone: its attachments too.
    expect((await req("GET", `/drafts/${draftId}/attachments`)).status).toBe(404);
  });

  test("a non-ASCII filename survives the trip", async () => {
    const draftId = await newDraft();
    expect((await upload(draftId, { name: "Angebot für Müller.pdf", type: "application/pdf", content: pdf })).status).toBe(201);
    expect((await req("POST", `/drafts/${draftId}/send`)).status).toBe(201);
    const parsed = await parseMail(o.sink.messages.at(-1)!.raw);
    expect(parsed.attachments[0]!.filename).toBe("Angebot für Müller.pdf");
  });

  test("an inbound attachment is attached by reference and forwarded unchanged", async () => {
    const inbound = await receive(
      o.ctx,
      o.mailbox.id,
      mime({
        from: "carol@example.org",
        to: o.mailbox.address,
        subject: "Report",
        text: "See attached",
        attachment: { name: "report.txt", type: "text/plain", content: "quarterly numbers\n" },
      }),
    );
    const message = await req("GET", `/messages/${inbound}`);
    const attachmentId = message.body.attachments[0].id;
    const draftId = await newDraft();
    const added = await req("POST", `/drafts/${draftId}/attachments/from-message`, { message_id: inbound, attachment_id: attachmentId });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ filename: "report.txt", content_type: "text/plain", source_attachment_id: attachmentId });
    expect((await req("POST", `/drafts/${draftId}/send`)).status).toBe(201);
    const parsed = await parseMail(o.sink.messages.at(-1)!.raw);
    expect(parsed.attachments[0]!.content.toString()).toBe("quarterly numbers\n");

    const missing = await req("POST", `/drafts/${await newDraft()}/attachments/from-message`, {
      message_id: inbound,
      attachment_id: "att_nope",
    });
    expect(missing).toMatchObject({ status: 404, body: { error: "not found" } });
    const unknownMessage = await req("POST", `/drafts/${await newDraft()}/attachments/from-message`, {
      message_id: "msg_nope",
      attachment_id: attachmentId,
    });
    expect(unknownMessage).toMatchObject({ status: 404, body: { error: "message not found" } });
  });

  test("the approval queue holds the files; approval sends them", async () => {
    const gated = await makeMailbox(o.ctx, o.owner, "gated-att");
    await updateMailboxSettings(o.ctx.sql, o.owner, gated.id, { requireApproval: true });
    const draftId = await newDraft(gated.id);
    expect((await upload(draftId, { name: "invoice.pdf", type: "application/pdf", content: pdf })).status).toBe(201);
    expect((await req("POST", `/drafts/${draftId}/send`)).status).toBe(202);
    // Pending: listed, but no longer editable.
    expect((await req("GET", `/drafts/${draftId}/attachments`)).body.attachments).toHaveLength(1);
    expect((await upload(draftId, { name: "more.pdf", type: "application/pdf", content: pdf })).body.code).toBe("approval_conflict");
    const attachmentId = (await req("GET", `/drafts/${draftId}/attachments`)).body.attachments[0].id;
    expect((await req("DELETE", `/drafts/${draftId}/attachments/${attachmentId}`)).body.code).toBe("approval_conflict");
    const approved = await approveDraft(o.ctx.svc, { accountId: o.owner.accountId, name: "reviewer" }, draftId);
    expect(approved.kind).toBe("sent");
    const parsed = await parseMail(o.sink.messages.at(-1)!.raw);
    expect(parsed.attachments.map((a) => sha(a.content))).toEqual([sha(pdf)]);
  });
});

describe("errors", () => {
  test("a declared type the bytes contradict is refused; a generic one is corrected", async () => {
    const draftId = await newDraft();
    const png = await upload(draftId, { name: "invoice.pdf", type: "application/pdf", content: PNG });
    expect(png).toEqual({
      status: 400,
      body: { error: "content_type application/pdf does not match the file's bytes, which are image/png" },
    });
    const text = await upload(draftId, { name: "notes.pdf", type: "application/pdf", content: "just text" });
    expect(text.status).toBe(400);
    expect(text.body.error).toContain("no application/pdf signature");
    const disguised = await upload(draftId, { name: "photo.png", type: "image/png", content: docx });
    expect(disguised.status).toBe(400);
    const exe = await upload(draftId, {
      name: "setup.txt",
      type: "text/plain",
      content: Uint8Array.from([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0, 0]),
    });
    expect(exe.status).toBe(400);
    expect(exe.body.error).toContain("executable");
    const generic = await upload(draftId, { name: "blob", type: "application/octet-stream", content: PNG });
    expect(generic.body.content_type).toBe("image/png");
    const csv = await upload(draftId, { name: "rows.csv", type: "text/csv", content: "a,b\n1,2\n" });
    expect(csv.body.content_type).toBe("text/csv");
  });

  test("names, empty files and bodies that are not one file part", async () => {
    const draftId = await newDraft();
    expect((await upload(draftId, { name: "evil\u202Efdp.exe", type: "text/plain", content: "x" })).status).toBe(400);
    expect((await upload(draftId, { name: "empty.txt", type: "text/plain", content: "" })).body).toEqual({ error: "the file is empty" });
    expect((await upload(draftId, null)).status).toBe(400);
    const twoFiles = await upload(draftId, { name: "a.txt", type: "text/plain", content: "a" }, o.owner.key, (form) =>
      form.append("file", new File(["b"], "b.txt", { type: "text/plain" })),
    );
    expect(twoFiles.body).toEqual({ error: "send one file per request" });
    const json = await req("POST", `/drafts/${draftId}/attachments`, { file: "aGVsbG8=" });
    expect(json.status).toBe(415);
    expect(json.body.error).toContain("multipart/form-data");
    // A path in the name keeps only its last segment.
    const pathy = await upload(draftId, { name: "../../etc/passwd.txt", type: "text/plain", content: "x" });
    expect(pathy.body.filename).toBe("passwd.txt");
  });

  test("count and size limits", async () => {
    const draftId = await newDraft();
    const big = new Uint8Array(150 * 1024).fill(65);
    expect((await upload(draftId, { name: "a.txt", type: "text/plain", content: big })).status).toBe(201);
    const over = await upload(draftId, { name: "b.txt", type: "text/plain", content: big });
    expect(over).toEqual({ status: 413, body: { error: `attachments may add up to at most ${200 * 1024} bytes per draft` } });
    const tooBig = await upload(await newDraft(), { name: "c.txt", type: "text/plain", content: new Uint8Array(300 * 1024).fill(65) });
    expect(tooBig.status).toBe(413);

    const counted = await newDraft();
    for (const name of ["1.txt", "2.txt", "3.txt"])
      expect((await upload(counted, { name, type: "text/plain", content: name })).status).toBe(201);
    expect(await upload(counted, { name: "4.txt", type: "text/plain", content: "4" })).toEqual({
      status: 400,
      body: { error: "a draft may carry at most 3 attachments" },
    });
    // Removing one makes room again.
    const listed = (await req("GET", `/drafts/${counted}/attachments`)).body.attachments;
    expect((await req("DELETE", `/drafts/${counted}/attachments/${listed[0].id}`)).status).toBe(204);
    expect((await req("DELETE", `/drafts/${counted}/attachments/${listed[0].id}`)).body).toEqual({ error: "not found" });
    expect((await upload(counted, { name: "4.txt", type: "text/plain", content: "4" })).status).toBe(201);
  });

  test("a deleted or unknown draft is 404", async () => {
    const draftId = await newDraft();
    expect((await req("DELETE", `/drafts/${draftId}`)).status).toBe(204);
    expect(await upload(draftId, { name: "a.txt", type: "text/plain", content: "a" })).toEqual({
      status: 404,
      body: { error: "draft not found" },
    });
    expect((await req("GET", `/drafts/drf_unknown/attachments`)).body).toEqual({ error: "draft not found" });
  });
});

describe("security", () => {
  test("another account's draft and message are the one 404; bound keys and capabilities hold", async () => {
    const draftId = await newDraft();
    const added = await upload(draftId, { name: "a.txt", type: "text/plain", content: "a" });
    const stranger = await makeAccount(o.ctx);
    const strangerMailbox = await makeMailbox(o.ctx, stranger, "stranger");
    const NOT_FOUND = { error: "draft not found" };
    expect(await upload(draftId, { name: "b.txt", type: "text/plain", content: "b" }, stranger.key)).toEqual({
      status: 404,
      body: NOT_FOUND,
    });
    expect((await req("GET", `/drafts/${draftId}/attachments`, undefined, stranger.key)).body).toEqual(NOT_FOUND);
    expect((await req("DELETE", `/drafts/${draftId}/attachments/${added.body.id}`, undefined, stranger.key)).body).toEqual(NOT_FOUND);

    // Their draft cannot take our message's attachment: our message is invisible to them.
    const inbound = await receive(
      o.ctx,
      o.mailbox.id,
      mime({
        from: "carol@example.org",
        to: o.mailbox.address,
        subject: "Secret",
        text: "x",
        attachment: { name: "s.txt", type: "text/plain", content: "secret" },
      }),
    );
    const attachmentId = (await req("GET", `/messages/${inbound}`)).body.attachments[0].id;
    const theirDraft = await newDraft(strangerMailbox.id, stranger.key);
    expect(
      await req(
        "POST",
        `/drafts/${theirDraft}/attachments/from-message`,
        { message_id: inbound, attachment_id: attachmentId },
        stranger.key,
      ),
    ).toMatchObject({
      status: 404,
      body: { error: "message not found" },
    });

    // A key bound to another mailbox of the same account sees neither the draft nor the message.
    const other = await makeMailbox(o.ctx, o.owner, "other-att");
    const bound = await makeKey(o.ctx, { accountId: o.owner.accountId, scope: "api", mailboxId: other.id });
    expect(await upload(draftId, { name: "b.txt", type: "text/plain", content: "b" }, bound)).toEqual({ status: 404, body: NOT_FOUND });
    expect((await req("GET", `/drafts/${draftId}/attachments`, undefined, bound)).body).toEqual(NOT_FOUND);
    const boundDraft = await newDraft(other.id, bound);
    expect(
      (await req("POST", `/drafts/${boundDraft}/attachments/from-message`, { message_id: inbound, attachment_id: attachmentId }, bound))
        .body,
    ).toEqual({
      error: "message not found",
    });

    // can_send governs writes, can_read the list.
    const readOnly = await makeKey(o.ctx, { accountId: o.owner.accountId, scope: "api", canSend: false });
    expect(await upload(draftId, { name: "b.txt", type: "text/plain", content: "b" }, readOnly)).toEqual({
      status: 403,
      body: { error: "this api key cannot send", code: "key_scope" },
    });
    expect((await req("DELETE", `/drafts/${draftId}/attachments/${added.body.id}`, undefined, readOnly)).status).toBe(403);
    const writeOnly = await makeKey(o.ctx, { accountId: o.owner.accountId, scope: "api", canRead: false });
    expect((await req("GET", `/drafts/${draftId}/attachments`, undefined, writeOnly)).body).toEqual({
      error: "this api key cannot read messages",
      code: "key_scope",
    });
    expect((await upload(draftId, { name: "b.txt", type: "text/plain", content: "b" }, "svc_wrong")).status).toBe(401);
  });
});
