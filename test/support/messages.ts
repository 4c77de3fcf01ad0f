// The world the GET /api/v1/messages tests read: one database, two accounts, mailboxes in each,
// and a way to put inbound mail in a mailbox through the real inbound path (acceptInbound).
import { acceptInbound } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "./context.ts";

export type MessagesWorld = {
  ctx: TestContext;
  owner: Fixture;
  stranger: Fixture;
  /** The owner's mailbox that the tests fill. */
  inbox: Mailbox;
  /** A second mailbox of the owner's (a bound key's other mailbox). */
  other: Mailbox;
  /** The stranger's mailbox. */
  foreign: Mailbox;
  /** Delivers one message to the mailbox; returns its id. */
  receive(mailbox: Mailbox, mail: { subject: string; text?: string; from?: string }): Promise<string>;
  list(key: string | null, query: string): ReturnType<TestContext["request"]>;
  get(key: string | null, id: string): ReturnType<TestContext["request"]>;
};

export async function makeMessagesWorld(): Promise<MessagesWorld> {
  const ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
  const owner = await makeAccount(ctx);
  const stranger = await makeAccount(ctx);
  const row = async (id: string) => (await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${id}`)[0]!;
  const inbox = await row((await makeMailbox(ctx, owner, "reader")).id);
  const other = await row((await makeMailbox(ctx, owner, "other")).id);
  const foreign = await row((await makeMailbox(ctx, stranger, "foreign")).id);
  return {
    ctx,
    owner,
    stranger,
    inbox,
    other,
    foreign,
    async receive(mailbox, mail) {
      const from = mail.from ?? "ana@example.org";
      const raw = [`From: ${from}`, `To: ${mailbox.address}`, `Subject: ${mail.subject}`, "", mail.text ?? "Hello.", ""].join("\r\n");
      const [id] = await acceptInbound(ctx.svc, Buffer.from(raw), [mailbox], { remoteIp: null, helo: null, mailFrom: from });
      return id!;
    },
    list: (key, query) => ctx.request("GET", `/api/v1/messages${query}`, { key }),
    get: (key, id) => ctx.request("GET", `/api/v1/messages/${encodeURIComponent(id)}`, { key }),
  };
}
