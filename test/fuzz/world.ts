// The world a fuzz run acts on: the real service over real HTTP on loopback, two accounts with
// mailboxes, messages (one with an attachment), drafts and a domain, and every kind of key the
// contract knows. Generated requests draw their ids and keys from here, so they reach real rows
// of the caller, of another account, and ids that exist nowhere.
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeKey, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";

export type World = {
  ctx: TestContext;
  base: string;
  keys: Record<"owner" | "mcp" | "bootstrap" | "bound" | "noCapabilities" | "stranger", string>;
  /** Ids by resource: the owner's, the stranger's. */
  ids: { mailbox: string[]; message: string[]; draft: string[]; domain: string[]; attachment: string[]; strangers: string[] };
  close(): Promise<void>;
};

const inboundMail = (subject: string, withAttachment: boolean) =>
  [
    "From: Alice <alice@example.org>",
    "To: someone@agents.localhost",
    `Subject: ${subject}`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="w"',
    "",
    "--w",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "Your code is 123456. The invoice for order 42 is due on 2026-12-01.",
    ...(withAttachment
      ? [
          "--w",
          "Content-Type: application/pdf",
          'Content-Disposition: attachment; filename="a.pdf"',
          "Content-Transfer-Encoding: base64",
          "",
          "JVBERi0xLjQK",
        ]
      : []),
    "--w--",
    "",
  ].join("\r\n");

async function mailboxRow(ctx: TestContext, id: string): Promise<Mailbox> {
  const [row] = await ctx.sql`select * from mailboxes where id = ${id}`;
  return row as Mailbox;
}

async function seedAccount(ctx: TestContext, fixture: Fixture, slug: string) {
  const mailboxes = [await makeMailbox(ctx, fixture, `${slug}-a`), await makeMailbox(ctx, fixture, `${slug}-b`)];
  const messages: string[] = [];
  for (const [index, mailbox] of mailboxes.entries()) {
    const ids = await acceptInbound(
      ctx.svc,
      Buffer.from(inboundMail(`seed ${slug} ${index}`, index === 0)),
      [await mailboxRow(ctx, mailbox.id)],
      {
        remoteIp: null,
        helo: null,
        mailFrom: "alice@example.org",
      },
    );
    messages.push(...ids);
  }
  const drafts: string[] = [];
  for (const mailbox of mailboxes) {
    for (let i = 0; i < 3; i++) {
      const reply = await ctx.request("POST", "/api/v1/drafts", {
        key: fixture.key,
        body: { mailbox_id: mailbox.id, to: "bob@example.org", subject: `draft ${i}`, text: "Hello" },
      });
      drafts.push(reply.body.id);
    }
  }
  const domain = await ctx.request("POST", "/api/v1/domains", { key: fixture.key, body: { name: `${slug}.example.com` } });
  const attachments = (
    await ctx.sql`select a.id from attachments a join messages m on m.id = a.message_id where m.account_id = ${fixture.accountId}`
  ).map((row) => row.id as string);
  return { mailboxes: mailboxes.map((m) => m.id), messages, drafts, domains: [domain.body.id as string], attachments };
}

export async function makeWorld(): Promise<World> {
  const dns: DnsServer = await startDnsServer({});
  const ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local", HTTP_PORT: "0", DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "500" });
  const server: HttpServer = startHttpServer(ctx.svc, ctx.app);
  const owner = await makeAccount(ctx, { plan: "paid" });
  const stranger = await makeAccount(ctx, { plan: "paid" });
  const mine = await seedAccount(ctx, owner, "owner");
  const theirs = await seedAccount(ctx, stranger, "stranger");
  const keys = {
    owner: owner.key,
    mcp: await makeKey(ctx, { accountId: owner.accountId, scope: "mcp" }),
    bootstrap: await makeKey(ctx, { accountId: owner.accountId, scope: "bootstrap" }),
    bound: await makeKey(ctx, { accountId: owner.accountId, scope: "api", mailboxId: mine.mailboxes[0]! }),
    noCapabilities: await makeKey(ctx, { accountId: owner.accountId, scope: "api", canRead: false, canSend: false }),
    stranger: stranger.key,
  };
  return {
    ctx,
    base: `http://127.0.0.1:${server.port}`,
    keys,
    ids: {
      mailbox: mine.mailboxes,
      message: mine.messages,
      draft: mine.drafts,
      domain: mine.domains,
      attachment: mine.attachments,
      strangers: [...theirs.mailboxes, ...theirs.messages, ...theirs.drafts, ...theirs.domains, ...theirs.attachments],
    },
    async close() {
      await server.stop();
      await ctx.close();
      await dns.close();
    },
  };
}
