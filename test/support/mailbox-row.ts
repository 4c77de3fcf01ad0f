// A mailbox row by id alone, for tests that hold only the id: the core reads mailboxes within
// an account, and these fixtures stand where the SMTP listener does, which finds them by address.
import type { Mailbox } from "../../src/core/mailboxes.ts";
import type { TestContext } from "./context.ts";

export async function mailboxRow(ctx: TestContext, mailboxId: string): Promise<Mailbox | null> {
  const [mailbox] = await ctx.sql<Mailbox[]>`select * from mailboxes where id = ${mailboxId}`;
  return mailbox ?? null;
}
