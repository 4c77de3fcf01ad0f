// List-Unsubscribe end to end: the one-click link (RFC 8058) and the mailto address from a mail as
// the relay received it. Only a POST or a mail to the address suppresses; GET (link scanners) and
// forged tokens never do.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import nodemailer from "nodemailer";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { listSuppressions } from "../../src/core/outbound/suppressions.ts";
import { makeAccount, makeMailbox, makeTestContext } from "../support/context.ts";
import { BASE_URL, type Outbound, rawHeader, startOutbound, waitFor } from "../support/outbound.ts";

// Subprocesses, the worker and a loaded CI machine need more than the default 5 s.
setDefaultTimeout(30_000);

let o: Outbound;
let smtp: SmtpListener;

beforeAll(async () => {
  o = await startOutbound();
  smtp = await startSmtpListener(o.ctx.svc, { port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await smtp.close();
  await o.close();
});

/** Sends to `to` and returns the links of the mail as the relay received it. */
async function sendAndGetLinks(to: string): Promise<{ messageId: string; path: string; mailto: string; token: string }> {
  const response = await o.send({ mailbox_id: o.mailbox.id, to, subject: "Newsletter", text: "News." });
  expect(response.status).toBe(201);
  const header = rawHeader(o.sink.messages.at(-1)!.raw, "List-Unsubscribe")!;
  const url = /<(https:[^>]+)>/.exec(header)![1]!;
  const mailto = /<mailto:([^?>]+)/.exec(header)![1]!;
  expect(url.startsWith(`${BASE_URL}/unsubscribe/`)).toBe(true);
  return { messageId: response.body.id, path: url.slice(BASE_URL.length), mailto, token: url.slice(url.lastIndexOf("/") + 1) };
}

const oneClick = (path: string) =>
  o.ctx.request("POST", path, { body: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } });

async function suppressed(address: string, accountId = o.owner.accountId) {
  return (await listSuppressions(o.ctx.sql, { accountId })).find((s) => s.address === address) ?? null;
}

const sendTo = (to: string) => o.send({ mailbox_id: o.mailbox.id, to, text: "again" });

describe("the one-click link", () => {
  test("POST suppresses the recipient for the sending account; the next send is 422", async () => {
    const links = await sendAndGetLinks("Reader.One@Example.org");
    const response = await oneClick(links.path);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const row = await suppressed("reader.one@example.org");
    expect(row).toMatchObject({ reason: "unsubscribe", source_message_id: links.messageId });
    const next = await sendTo("reader.one@example.org");
    expect(next.status).toBe(422);
    expect(next.body).toEqual({ error: "recipient is suppressed (bounce, complaint or unsubscribe)" });
  });

  test("using the link twice is harmless", async () => {
    const links = await sendAndGetLinks("twice@example.org");
    expect((await oneClick(links.path)).status).toBe(200);
    expect((await oneClick(links.path)).status).toBe(200);
    expect((await listSuppressions(o.ctx.sql, o.owner)).filter((s) => s.address === "twice@example.org")).toHaveLength(1);
  });

  test("the suppression is the sending account's only", async () => {
    const links = await sendAndGetLinks("scoped@example.org");
    expect((await oneClick(links.path)).status).toBe(200);
    const other = await makeAccount(o.ctx);
    const box = await makeMailbox(o.ctx, other, "unsub-other");
    expect((await o.send({ mailbox_id: box.id, to: "scoped@example.org", text: "hi" }, other.key)).status).toBe(201);
  });

  test("GET shows a confirmation form and suppresses nothing", async () => {
    const links = await sendAndGetLinks("scanner@example.org");
    const response = await o.ctx.request("GET", links.path);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(response.text).toMatch(/<form method="post" action="\/unsubscribe\/[0-9a-z]{32}">/);
    // The dashboard's security headers: no script, no framing, no sniffing.
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await suppressed("scanner@example.org")).toBeNull();
    expect((await sendTo("scanner@example.org")).status).toBe(201);
  });

  test("a forged or altered token is 404 and suppresses nothing", async () => {
    const links = await sendAndGetLinks("victim@example.org");
    const flip = (c: string) => (c === "a" ? "b" : "a");
    const altered = [
      links.token.slice(0, -1) + flip(links.token.at(-1)!), // signature changed
      flip(links.token[0]!) + links.token.slice(1), // id changed, old signature
      "0".repeat(32),
      links.token.slice(0, 31),
      `${links.token}0`,
      links.token.toUpperCase(),
    ];
    for (const token of altered) {
      const response = await oneClick(`/unsubscribe/${token}`);
      expect(response.status).toBe(404);
    }
    expect(await suppressed("victim@example.org")).toBeNull();
    expect((await sendTo("victim@example.org")).status).toBe(201);
  });
});

describe("the mailto address", () => {
  async function mailTo(address: string) {
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtp.port,
      secure: false,
      ignoreTLS: true,
      name: "client.test",
    });
    try {
      return await transport.sendMail({ from: "reader@example.org", to: address, subject: "unsubscribe", text: "unsubscribe" });
    } finally {
      transport.close();
    }
  }

  test("mail to it through the real SMTP listener suppresses the recipient", async () => {
    const links = await sendAndGetLinks("mailer@example.org");
    expect(links.mailto).toBe(`unsubscribe-${links.token}@${o.ctx.config.sharedDomain}`);
    const info = await mailTo(links.mailto);
    expect(info.response).toMatch(/^250 /);
    const row = await waitFor(() => suppressed("mailer@example.org"), "the unsubscribe suppression");
    expect(row).toMatchObject({ reason: "unsubscribe", source_message_id: links.messageId });
    expect((await sendTo("mailer@example.org")).status).toBe(422);
    // The request mail is not stored as a message of any mailbox.
    const [stored] = await o.ctx.sql`select count(*)::int as n from messages where subject = 'unsubscribe'`;
    expect(stored!.n).toBe(0);
  });

  test("mail to a forged unsubscribe address suppresses nothing", async () => {
    const links = await sendAndGetLinks("kept@example.org");
    const forged = `unsubscribe-${links.token.slice(0, 16)}${"0".repeat(16)}@${o.ctx.config.sharedDomain}`;
    await mailTo(forged).catch(() => null);
    await Bun.sleep(100);
    expect(await suppressed("kept@example.org")).toBeNull();
    expect((await sendTo("kept@example.org")).status).toBe(201);
  });
});

describe("a service on plain http", () => {
  test("offers the mailto alone, without the one-click header", async () => {
    const ctx = await makeTestContext({
      DELIVERY_TRANSPORT: "smtp",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${o.sink.port}`,
      PUBLIC_BASE_URL: "http://localhost:3000",
    });
    try {
      const account = await makeAccount(ctx);
      const box = await makeMailbox(ctx, account, "plain-http");
      const response = await ctx.request("POST", "/api/v1/send", {
        key: account.key,
        body: { mailbox_id: box.id, to: "reader@example.org", text: "hi" },
      });
      expect(response.status).toBe(201);
      const raw = o.sink.messages.at(-1)!.raw;
      expect(rawHeader(raw, "List-Unsubscribe")).toMatch(/^<mailto:unsubscribe-[0-9a-z]{32}@[^>]+>$/);
      expect(rawHeader(raw, "List-Unsubscribe-Post")).toBeNull();
    } finally {
      await ctx.close();
    }
  });
});
