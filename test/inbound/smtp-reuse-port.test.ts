// SMTP_REUSE_PORT: several listener processes of the smtp role on one host share SMTP_PORT. Two
// listeners bind the same port only when both ask for it, and mail through the shared port is
// stored whichever of them takes the connection.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mime } from "../support/mail-fixtures.ts";
import { reusableDataDir, servicesWith } from "../support/smtp-client.ts";
import { connectSmtp } from "../support/smtp-connection.ts";

let ctx: TestContext;
const listeners: SmtpListener[] = [];

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir });
});
afterAll(async () => {
  for (const listener of listeners) await listener.close();
  await ctx.close();
});

async function listen(port: number, reusePort: boolean): Promise<SmtpListener> {
  const env = { DATA_DIR: reusableDataDir, SMTP_REUSE_PORT: String(reusePort) };
  const listener = await startSmtpListener(servicesWith(ctx, env), { port, host: "127.0.0.1" });
  listeners.push(listener);
  return listener;
}

test("without it a second listener cannot bind the port; with it both do, and mail through the port is stored", async () => {
  const first = await listen(0, true);
  await expect(listen(first.port, false)).rejects.toThrow();
  const second = await listen(first.port, true);
  expect(second.port).toBe(first.port);

  const owner = await makeAccount(ctx);
  const mailbox = await makeMailbox(ctx, owner, "shared-port");
  const sent = 8;
  for (let i = 0; i < sent; i++) {
    const connection = await connectSmtp(first.port, { name: "client.example", socketTimeoutMs: 10_000 });
    const raw = mime({ from: "lee@example.org", to: mailbox.address, subject: `shared ${i}`, text: "hello" });
    const reply = await new Promise<string>((resolve, reject) =>
      connection.send({ from: "lee@example.org", to: [mailbox.address] }, Buffer.from(raw), (error, info) =>
        error ? reject(error) : resolve(info.response),
      ),
    );
    expect(reply).toMatch(/^250 /);
    connection.quit();
  }
  const [{ n }] = await ctx.sql`select count(*)::int as n from messages where mailbox_id = ${mailbox.id}`;
  expect(n).toBe(sent);
});
