// Sender authentication on the inbound path: mail arrives over SMTP, the process_inbound task
// fills auth_results, and the API shows it. DNS answers come from a real DNS server on loopback.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import type { Services } from "../../src/core/services.ts";
import { generateDkimKeyPair } from "../../src/mail/dkim-keys.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { processInbound } from "../../worker/tasks/process_inbound.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startDnsServer, startSilentDnsServer } from "../support/dns-server.ts";
import { reusableDataDir, sendMail, servicesWith, waitFor } from "../support/smtp-client.ts";

// One database for the file; each mode is the same code configured by its environment variables.
let ctx: TestContext;
let owner: Fixture;
let inbox: { id: string; address: string };

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir });
  owner = await makeAccount(ctx);
  inbox = await makeMailbox(ctx, owner, "auth");
});

afterAll(() => ctx.close());

type Setup = { svc: Services; smtp: SmtpListener };

async function setUp(env: Record<string, string>): Promise<Setup> {
  const svc = servicesWith(ctx, env);
  return { svc, smtp: await startSmtpListener(svc, { port: 0 }) };
}

async function tearDown(setup: Setup | undefined): Promise<void> {
  await setup?.smtp.close();
}

/** The message stored for a subject, as the API returns it. */
async function readBack(subject: string) {
  const [row] = await ctx.sql`select id from messages where mailbox_id = ${inbox.id} and subject = ${subject}`;
  const detail = await ctx.request("GET", `/api/v1/messages/${row.id}`, { key: owner.key });
  expect(detail.status).toBe(200);
  return detail.body;
}

async function idOf(subject: string): Promise<string> {
  const [row] = await ctx.sql`select id from messages where subject = ${subject}`;
  return row.id;
}

describe("verify mode, through the real worker", () => {
  let dns: DnsServer;
  let setup: Setup;
  let worker: WorkerHandle;
  let dkim: { domainName: string; keySelector: string; privateKey: string };

  beforeAll(async () => {
    const keys = await generateDkimKeyPair();
    dkim = { domainName: "sender.example", keySelector: "s1", privateKey: keys.privateKeyPem };
    dns = await startDnsServer({
      "sender.example": { TXT: [["v=spf1 ip4:127.0.0.1 -all"]] },
      "s1._domainkey.sender.example": { TXT: [[`v=DKIM1; k=rsa; p=${keys.publicKeyBase64}`]] },
      "_dmarc.sender.example": { TXT: [["v=DMARC1; p=reject"]] },
      "elsewhere.example": { TXT: [["v=spf1 ip4:192.0.2.1 -all"]] },
      "_dmarc.elsewhere.example": { TXT: [["v=DMARC1; p=quarantine"]] },
    });
    setup = await setUp({ INBOUND_AUTH_MODE: "verify", DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "1000" });
    worker = await startWorker(setup.svc, ctx.config.databaseUrl!);
  });

  afterAll(async () => {
    await worker?.stop();
    await tearDown(setup);
    await dns?.close();
  });

  async function processed(subject: string) {
    const id = await waitFor(
      async () => {
        const [row] = await ctx.sql`select id, processed_at from messages where subject = ${subject}`;
        return row?.processed_at ? (row.id as string) : null;
      },
      `message '${subject}' to be processed`,
      20_000,
    );
    expect(id).toMatch(/^msg_/);
    return readBack(subject);
  }

  test("until the worker has run, auth_results is null", async () => {
    // Stored straight from the listener's transaction; processing is the worker's job.
    const [row] = await ctx.sql`
      insert into messages (id, account_id, mailbox_id, direction, thread_id, from_addr, to_addr, subject)
      values ('msg_unprocessed1', ${owner.accountId}, ${inbox.id}, 'in', 'thr_u1', 'a@b.example', ${inbox.address}, 'unprocessed')
      returning id`;
    const detail = await ctx.request("GET", `/api/v1/messages/${row.id}`, { key: owner.key });
    expect(detail.body.auth_results).toBeNull();
  });

  test("DKIM-signed, from an IP in SPF, DMARC published: pass, pass, pass", async () => {
    const info = await sendMail(
      setup.smtp.port,
      {
        from: "Alice <alice@sender.example>",
        to: inbox.address,
        subject: "signed and sealed",
        text: "All good.\n",
        envelope: { from: "alice@sender.example", to: inbox.address },
      },
      { dkim, name: "mail.sender.example" },
    );
    expect(info.response).toMatch(/^250 /);
    const message = await processed("signed and sealed");
    expect(message.auth_results).toEqual({ spf: "pass", dkim: "pass", dmarc: "pass" });
    // The verdicts came from our DNS server, not from anything cached or assumed.
    const asked = dns.queries.map((q) => `${q.type} ${q.name.toLowerCase()}`);
    expect(asked).toContain("TXT s1._domainkey.sender.example");
    expect(asked).toContain("TXT sender.example");
    expect(asked).toContain("TXT _dmarc.sender.example");
  });

  test("from an IP outside the sender's SPF, unsigned: SPF fail, DKIM none, DMARC fail", async () => {
    const info = await sendMail(setup.smtp.port, {
      from: "bob@elsewhere.example",
      to: inbox.address,
      subject: "spf says no",
      text: "trust me\n",
    });
    expect(info.response).toMatch(/^250 /);
    const message = await processed("spf says no");
    expect(message.auth_results).toEqual({ spf: "fail", dkim: "none", dmarc: "fail" });
  });

  test("a DKIM signature broken in transit (body changed after signing): DKIM fail", async () => {
    // Signed, then altered: what a tampering relay would deliver.
    const nodemailer = (await import("nodemailer")).default;
    const signed = await nodemailer.createTransport({ streamTransport: true, buffer: true, dkim }).sendMail({
      from: "alice@sender.example",
      to: inbox.address,
      subject: "tampered",
      text: "Pay 10 EUR.\n",
    });
    const altered = Buffer.from((signed.message as Buffer).toString().replace("Pay 10 EUR.", "Pay 9000 EUR."));
    const info = await sendMail(setup.smtp.port, { envelope: { from: "alice@sender.example", to: inbox.address }, raw: altered });
    expect(info.response).toMatch(/^250 /);
    const message = await processed("tampered");
    expect(message.auth_results.dkim).toBe("fail");
    expect(message.auth_results.spf).toBe("pass");
  });
});

describe("verify mode against a DNS server that never answers", () => {
  let silent: Awaited<ReturnType<typeof startSilentDnsServer>>;
  let setup: Setup;

  beforeAll(async () => {
    silent = await startSilentDnsServer();
    setup = await setUp({ INBOUND_AUTH_MODE: "verify", DNS_SERVERS: silent.address, DNS_TIMEOUT_MS: "200" });
  });

  afterAll(async () => {
    await tearDown(setup);
    await silent?.close();
  });

  test("the task finishes promptly with temperror instead of stalling", async () => {
    await sendMail(setup.smtp.port, { from: "carol@sender.example", to: inbox.address, subject: "dns is down", text: "x" });
    const started = Date.now();
    await processInbound(setup.svc, { message_id: await idOf("dns is down") });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(silent.received()).toBeGreaterThan(0);
    const message = await readBack("dns is down");
    expect(message.auth_results.spf).toBe("temperror");
  }, 20_000);
});

describe("trust mode", () => {
  let setup: Setup;

  beforeAll(async () => {
    setup = await setUp({ INBOUND_AUTH_MODE: "trust", TRUSTED_AUTHSERV_IDS: "mx.trusted.example" });
  });
  afterAll(() => tearDown(setup));

  async function deliverWith(subject: string, authenticationResults: string[]) {
    const info = await sendMail(setup.smtp.port, {
      from: "dan@upstream.example",
      to: inbox.address,
      subject,
      text: "relayed\n",
      headers: authenticationResults.map((value) => ({ key: "Authentication-Results", value })),
    });
    expect(info.response).toMatch(/^250 /);
    await processInbound(setup.svc, { message_id: await idOf(subject) });
    return readBack(subject);
  }

  test("the header of a trusted authserv-id is read", async () => {
    const message = await deliverWith("relayed by trusted", [
      "mx.trusted.example; spf=pass smtp.mailfrom=dan@upstream.example; dkim=fail header.d=upstream.example; dmarc=fail header.from=upstream.example",
    ]);
    expect(message.auth_results).toEqual({ spf: "pass", dkim: "fail", dmarc: "fail" });
  });

  test("a header from an untrusted authserv-id is ignored: null", async () => {
    const message = await deliverWith("forged results", ["mx.evil.example; spf=pass; dkim=pass; dmarc=pass"]);
    expect(message.auth_results).toBeNull();
  });

  test("with no Authentication-Results at all: null", async () => {
    const message = await deliverWith("no results header", []);
    expect(message.auth_results).toBeNull();
  });
});

describe("off mode", () => {
  let setup: Setup;

  beforeAll(async () => {
    setup = await setUp({ INBOUND_AUTH_MODE: "off" });
  });
  afterAll(() => tearDown(setup));

  test("nothing is checked and auth_results stays null, even with a results header present", async () => {
    const info = await sendMail(setup.smtp.port, {
      from: "erin@sender.example",
      to: inbox.address,
      subject: "unchecked",
      text: "x",
      headers: { "Authentication-Results": "mx.trusted.example; spf=pass; dkim=pass; dmarc=pass" },
    });
    expect(info.response).toMatch(/^250 /);
    const id = await idOf("unchecked");
    await processInbound(setup.svc, { message_id: id });
    const [row] = await ctx.sql`select processed_at from messages where id = ${id}`;
    expect(row.processed_at).not.toBeNull();
    expect((await readBack("unchecked")).auth_results).toBeNull();
  });
});
