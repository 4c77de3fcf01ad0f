// Where webhooks may go. With WEBHOOK_ALLOW_PRIVATE_NETWORKS=false every loopback, private,
// link-local and metadata target is refused when the URL is set (a 400 saying why, nothing
// stored) and again at attempt time (recorded as a failed attempt, no connection made: live
// receivers on those addresses see nothing), for URLs stored earlier or names whose DNS changed
// since. With it true, loopback and private targets are allowed; link-local and metadata never.
// The POST connects to the address that was checked, never re-resolving.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CoreError } from "../../src/core/errors.ts";
import { listAttempts, setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { isBlockedAddress, resolveWebhookTarget, UnsafeTargetError } from "../../src/core/webhooks/target.ts";
import { makeAccount, makeMailbox } from "../support/context.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";
import { refusal } from "../support/refusal.ts";
import { sendMail, waitFor } from "../support/smtp-client.ts";
import { type Stack, startStack, stopStack } from "../support/stack.ts";
import { type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const SECRET = "whsec_security_tests_0123456789";

let mailCount = 0;

/**
 * One account with its webhook at `url`, one personal-looking mail, and its first recorded attempt.
 * `stored` writes the row as an older release (or a name whose DNS has changed since) left it,
 * bypassing the check at set time, so the check at attempt time is what is tested.
 */
async function firstAttempt(stack: Stack, url: string, how: "set" | "stored" = "set") {
  const account = await makeAccount(stack.ctx);
  const mailbox = await makeMailbox(stack.ctx, account);
  if (how === "set") await setWebhook(stack.ctx.svc, { accountId: account.accountId, url, secret: SECRET });
  else
    await stack.ctx
      .sql`insert into webhook_endpoints (account_id, url, secret, enabled) values (${account.accountId}, ${url}, ${SECRET}, true)`;
  const n = ++mailCount;
  await sendMail(stack.smtp.port, {
    from: "lee@example.org",
    to: mailbox.address,
    subject: `Saturday hike ${n}`,
    text: "Hi Pat,\n\nAre we still on for the hike on Saturday morning? I can drive if you like.\n\nLee",
  });
  const delivery = await waitFor(async () => {
    const [row] = await stack.ctx.sql`select id from webhook_deliveries where account_id = ${account.accountId} and attempts >= 1`;
    return row;
  }, `the first attempt for ${url}`);
  const [attempt] = await listAttempts(stack.ctx.sql, account, delivery.id);
  return attempt!;
}

let dns: DnsServer;
let v4: Receiver;
let v6: Receiver | null = null;
let stack: Stack; // private networks not allowed, as in production

beforeAll(async () => {
  // Live receivers on loopback: a refused target that connected anyway would show up here.
  v4 = await startReceiver();
  v6 = await startReceiver(undefined, "::1").catch(() => null);
  dns = await startDnsServer({
    "private.hooks.test": { A: ["192.168.1.10"] },
    "loopback.hooks.test": { A: ["127.0.0.1"] },
    "metadata.hooks.test": { A: ["169.254.169.254"] },
    "metadata6.hooks.test": { AAAA: ["fd00:ec2::254"] },
    // ::ffff:127.0.0.1 (dns2 cannot encode the dotted form)
    "mapped.hooks.test": { AAAA: ["::ffff:7f00:1"] },
    "linklocal.hooks.test": { AAAA: ["fe80::1"] },
    // One public and one private address: a client may pick either, so the name is refused.
    "mixed.hooks.test": { A: ["93.184.216.34"], AAAA: ["::1"] },
    "public.hooks.test": { A: ["93.184.216.34"] },
  });
  stack = await startStack({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false",
    DNS_SERVERS: dns.address,
    WEBHOOK_TIMEOUT_MS: "1000",
    // One attempt per case is enough; retries would only repeat it.
    WEBHOOK_RETRY_SCHEDULE: "120,120,120,120,120",
  });
});

afterAll(async () => {
  await stopStack(stack);
  await v4.close();
  await v6?.close();
  await dns.close();
});

describe("isBlockedAddress", () => {
  test.each([
    "127.0.0.1",
    "127.255.255.254",
    "0.0.0.0",
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.10",
    "169.254.169.254",
    "100.64.0.1",
    "192.0.0.8",
    "198.18.0.1",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254",
    "ff02::1",
    "2001:db8::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::a9fe:a9fe",
    "100.100.100.200",
    "2002:7f00:1::1",
    "::7f00:1",
    // Odd spellings of an IPv4 address are never a target, whatever they spell.
    "2130706433",
    "0177.0.0.1",
    "0x7f.1",
    "127.1",
    "0x5db8d822",
    "not-an-address",
    "",
  ])("blocked: %p", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  test.each([
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "172.15.255.255",
    "172.32.0.1",
    "100.128.0.1",
    "11.0.0.1",
    "2606:4700::1",
    "2001:4860:4860::8888",
    "::ffff:93.184.216.34",
  ])("allowed: %p", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});

describe("configuration time", () => {
  test.each([
    ["ftp://example.org/hook", "webhook url must be http or https"],
    ["file:///etc/passwd", "webhook url must be http or https"],
    ["gopher://127.0.0.1:6379/_INFO", "webhook url must be http or https"],
    ["javascript:alert(1)", "webhook url must be http or https"],
    ["not a url", "webhook url is not a valid URL"],
    ["https://user:pass@example.org/hook", "webhook url must not contain credentials"],
  ])("setWebhook(%p) is a 400 and stores nothing", async (url, message) => {
    const account = await makeAccount(stack.ctx);
    const error = await refusal(setWebhook(stack.ctx.svc, { accountId: account.accountId, url, secret: SECRET }));
    expect(error.status).toBe(400);
    expect(error.body).toEqual({ error: message });
    expect(await stack.ctx.sql`select 1 from webhook_endpoints where account_id = ${account.accountId}`).toHaveLength(0);
  });

  // Every form issue 20 lists, and names resolving to them through the local DNS server.
  const refused: [string, string][] = [
    ["http://127.0.0.1/hook", "webhook url refused: 127.0.0.1 is a loopback address"],
    ["http://127.0.0.1:8080/hook", "webhook url refused: 127.0.0.1 is a loopback address"],
    ["http://localhost/hook", "webhook url refused: localhost resolves to a loopback address (127.0.0.1)"],
    ["http://169.254.169.254/latest/meta-data/", "webhook url refused: 169.254.169.254 is a cloud metadata address"],
    ["http://169.254.1.1/", "webhook url refused: 169.254.1.1 is a link-local address"],
    ["http://[::1]/hook", "webhook url refused: ::1 is a loopback address"],
    ["http://[::ffff:127.0.0.1]/hook", "webhook url refused: ::ffff:7f00:1 is a loopback address"],
    ["http://[fd00:ec2::254]/", "webhook url refused: fd00:ec2::254 is a cloud metadata address"],
    ["http://[fe80::1]/", "webhook url refused: fe80::1 is a link-local address"],
    ["http://10.0.0.1/in", "webhook url refused: 10.0.0.1 is a private-network address"],
    ["http://0.0.0.0/", "webhook url refused: 0.0.0.0 is an unspecified address"],
    [
      "http://2130706433/hook",
      "webhook url host 2130706433 is an unusual spelling of the address 127.0.0.1; write addresses as plain dotted quads",
    ],
    [
      "http://0177.0.0.1/hook",
      "webhook url host 0177.0.0.1 is an unusual spelling of the address 127.0.0.1; write addresses as plain dotted quads",
    ],
    [
      "http://0x7f.1/hook",
      "webhook url host 0x7f.1 is an unusual spelling of the address 127.0.0.1; write addresses as plain dotted quads",
    ],
    [
      "https://0x7F.1:8443/hook",
      "webhook url host 0x7f.1 is an unusual spelling of the address 127.0.0.1; write addresses as plain dotted quads",
    ],
    // Odd spellings are refused even when they spell a public address.
    [
      "http://1572395042/hook",
      "webhook url host 1572395042 is an unusual spelling of the address 93.184.216.34; write addresses as plain dotted quads",
    ],
    [
      "http://%31%32%37.0.0.1/hook",
      "webhook url host %31%32%37.0.0.1 is an unusual spelling of the address 127.0.0.1; write addresses as plain dotted quads",
    ],
    ["http://loopback.hooks.test/hook", "webhook url refused: loopback.hooks.test resolves to a loopback address (127.0.0.1)"],
    ["http://metadata.hooks.test/hook", "webhook url refused: metadata.hooks.test resolves to a cloud metadata address (169.254.169.254)"],
    ["http://metadata6.hooks.test/hook", "webhook url refused: metadata6.hooks.test resolves to a cloud metadata address (fd00:ec2::254)"],
    ["http://mapped.hooks.test/hook", "webhook url refused: mapped.hooks.test resolves to a loopback address (::ffff:7f00:1)"],
    ["http://linklocal.hooks.test/hook", "webhook url refused: linklocal.hooks.test resolves to a link-local address (fe80::1)"],
    ["http://private.hooks.test/hook", "webhook url refused: private.hooks.test resolves to a private-network address (192.168.1.10)"],
    ["http://mixed.hooks.test/hook", "webhook url refused: mixed.hooks.test resolves to a loopback address (::1)"],
    ["http://nowhere.hooks.test/hook", "webhook url could not resolve nowhere.hooks.test"],
  ];

  test.each(refused)("setWebhook(%p) is refused when set: 400 saying why, nothing stored", async (url, message) => {
    const account = await makeAccount(stack.ctx);
    const error = await refusal(setWebhook(stack.ctx.svc, { accountId: account.accountId, url, secret: SECRET }));
    expect({ status: error.status, body: error.body }).toEqual({ status: 400, body: { error: message } });
    expect(await stack.ctx.sql`select 1 from webhook_endpoints where account_id = ${account.accountId}`).toHaveLength(0);
  });

  test("a refused URL leaves the webhook that was set before untouched", async () => {
    const account = await makeAccount(stack.ctx);
    await setWebhook(stack.ctx.svc, { accountId: account.accountId, url: "https://public.hooks.test/in", secret: SECRET });
    await expect(
      setWebhook(stack.ctx.svc, { accountId: account.accountId, url: "http://127.0.0.1/", secret: SECRET }),
    ).rejects.toBeInstanceOf(CoreError);
    const [row] = await stack.ctx.sql`select url, enabled from webhook_endpoints where account_id = ${account.accountId}`;
    expect(row).toEqual({ url: "https://public.hooks.test/in", enabled: true });
  });

  test("a public name and a public address are accepted", async () => {
    const account = await makeAccount(stack.ctx);
    const named = await setWebhook(stack.ctx.svc, { accountId: account.accountId, url: "https://public.hooks.test/in", secret: SECRET });
    expect(named.endpoint).toMatchObject({ url: "https://public.hooks.test/in", enabled: true });
    const literal = await setWebhook(stack.ctx.svc, { accountId: account.accountId, url: "http://93.184.216.34/in", secret: SECRET });
    expect(literal.endpoint).toMatchObject({ url: "http://93.184.216.34/in", enabled: true });
  });

  test("the CLI's webhook set refuses the same way, exit 1 with the reason", async () => {
    const account = await makeAccount(stack.ctx);
    // Asynchronous: the DNS server the CLI asks runs in this process.
    const cli = async (url: string, allowPrivate: string) => {
      const child = Bun.spawn([process.execPath, "src/cli.ts", "webhook", "set", "--account", account.accountId, "--url", url], {
        env: {
          ...process.env,
          DATABASE_URL: stack.ctx.config.databaseUrl!,
          DNS_SERVERS: dns.address,
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: allowPrivate,
          LOG_LEVEL: "silent",
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      return { code: await child.exited, stderr: await new Response(child.stderr).text() };
    };
    expect(await cli("http://0x7f.1/hook", "false")).toEqual({
      code: 1,
      stderr: "error: webhook url host 0x7f.1 is an unusual spelling of the address 127.0.0.1; write addresses as plain dotted quads\n",
    });
    expect(await cli("http://metadata.hooks.test/", "true")).toEqual({
      code: 1,
      stderr: "error: webhook url refused: metadata.hooks.test resolves to a cloud metadata address (169.254.169.254)\n",
    });
    expect(await stack.ctx.sql`select 1 from webhook_endpoints where account_id = ${account.accountId}`).toHaveLength(0);
  });
});

describe("attempt time, private networks not allowed", () => {
  test("loopback, private, link-local, metadata and mapped targets are refused without connecting", async () => {
    const port = new URL(v4.url).port;
    const port6 = v6 ? new URL(v6.url).port : port;
    const cases: [string, string][] = [
      [`http://127.0.0.1:${port}/hooks/mail`, "127.0.0.1"],
      [`http://localhost:${port}/hooks/mail`, "127.0.0.1"],
      [`http://[::1]:${port6}/hooks/mail`, "::1"],
      [`http://[::ffff:127.0.0.1]:${port}/hooks/mail`, "::ffff:7f00:1"],
      // The URL parser's spellings of 127.0.0.1 are normalized before the check.
      [`http://2130706433:${port}/hooks/mail`, "127.0.0.1"],
      [`http://0x7f.1:${port}/hooks/mail`, "127.0.0.1"],
      [`http://0.0.0.0:${port}/hooks/mail`, "0.0.0.0"],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
      ["http://10.0.0.1/hook", "10.0.0.1"],
      ["http://private.hooks.test/hook", "192.168.1.10"],
      [`http://loopback.hooks.test:${port}/hooks/mail`, "127.0.0.1"],
      [`http://mixed.hooks.test:${port6}/hooks/mail`, "::1"],
    ];
    const attempts = await Promise.all(cases.map(([url]) => firstAttempt(stack, url, "stored")));
    attempts.forEach((attempt, i) => {
      const [url, address] = cases[i]!;
      expect({ url, status: attempt.status, latency: attempt.latency_ms }).toEqual({ url, status: null, latency: null });
      expect(attempt.error).toMatch(/^refused: .+ (is|resolves to) an? [a-z -]+ address( \(.+\))?$/);
      expect(attempt.error).toContain(address);
    });
    expect(v4.requests).toHaveLength(0);
    expect(v6?.requests ?? []).toHaveLength(0);
  });

  test("a name that was public when set and points at loopback later is refused at the attempt", async () => {
    dns.zone["turncoat.hooks.test"] = { A: ["93.184.216.34"] };
    const account = await makeAccount(stack.ctx);
    const mailbox = await makeMailbox(stack.ctx, account);
    await setWebhook(stack.ctx.svc, {
      accountId: account.accountId,
      url: `http://turncoat.hooks.test:${new URL(v4.url).port}/hooks/mail`,
      secret: SECRET,
    });
    dns.zone["turncoat.hooks.test"] = { A: ["127.0.0.1"] };
    await sendMail(stack.smtp.port, {
      from: "lee@example.org",
      to: mailbox.address,
      subject: `Turncoat ${++mailCount}`,
      text: "Hi Pat,\n\nLunch on Friday?\n\nLee",
    });
    const delivery = await waitFor(async () => {
      const [row] = await stack.ctx.sql`select id from webhook_deliveries where account_id = ${account.accountId} and attempts >= 1`;
      return row;
    }, "the first attempt after the DNS change");
    const [attempt] = await listAttempts(stack.ctx.sql, account, delivery.id);
    expect(attempt!.error).toBe("refused: turncoat.hooks.test resolves to a loopback address (127.0.0.1)");
    expect(v4.requests).toHaveLength(0);
  });

  test("DNS rebinding: the name is checked once and the POST goes to that checked (public) address", async () => {
    // Public when checked; a second look-up (as a client resolving again at connect time would
    // do) gets loopback, where a live receiver waits.
    const zone = dns.zone;
    zone["rebind.hooks.test"] = { A: ["93.184.216.34"] };
    const before = dns.queries.length;
    const flip = setInterval(() => {
      if (dns.queries.slice(before).some((q) => q.name.toLowerCase() === "rebind.hooks.test" && q.type === "A")) {
        zone["rebind.hooks.test"] = { A: ["127.0.0.1"] };
        clearInterval(flip);
      }
    }, 1);
    const attempt = await firstAttempt(stack, `http://rebind.hooks.test:${new URL(v4.url).port}/hooks/mail`, "stored");
    clearInterval(flip);
    // It connected to 93.184.216.34, which is unreachable from here, and nowhere else.
    expect(attempt.status).toBeNull();
    expect(attempt.error).not.toMatch(/^refused/);
    expect(attempt.error).toMatch(/93\.184\.216\.34|timed out/);
    expect(v4.requests).toHaveLength(0);
    expect(dns.queries.slice(before).filter((q) => q.name.toLowerCase() === "rebind.hooks.test" && q.type === "A")).toHaveLength(1);
  });

  test("resolveWebhookTarget refuses a name that does not resolve, and a non-http scheme stored earlier", async () => {
    const missing = await resolveWebhookTarget("http://nowhere.hooks.test/", stack.ctx.svc.resolve, false).catch((e) => e);
    expect(missing).toBeInstanceOf(UnsafeTargetError);
    expect(missing.message).toBe("could not resolve nowhere.hooks.test");
    const scheme = await resolveWebhookTarget("ftp://public.hooks.test/", stack.ctx.svc.resolve, false).catch((e) => e);
    expect(scheme).toBeInstanceOf(UnsafeTargetError);
    // The control: a public name passes, pinned to its address.
    const ok = await resolveWebhookTarget("https://public.hooks.test/in", stack.ctx.svc.resolve, false);
    expect({ address: ok.address, family: ok.family, host: ok.url.host }).toEqual({
      address: "93.184.216.34",
      family: 4,
      host: "public.hooks.test",
    });
  });
});

describe("attempt time, private networks allowed (development)", () => {
  let allowed: Stack;
  beforeAll(async () => {
    allowed = await startStack({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", DNS_SERVERS: dns.address });
  });
  afterAll(async () => {
    await stopStack(allowed);
  });

  test("a name only our DNS server knows reaches the receiver at its checked address, Host header naming the URL's host", async () => {
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url).port;
      dns.zone["dev.hooks.test"] = { A: ["127.0.0.1"] };
      const attempt = await firstAttempt(allowed, `http://dev.hooks.test:${port}/hooks/mail?k=1`);
      expect(attempt.status).toBe(200);
      const [request] = await receiver.waitForRequests(1);
      // The system resolver has never heard of dev.hooks.test: only the pinned address got us here.
      expect(request!.headers.host).toBe(`dev.hooks.test:${port}`);
      expect(request!.path).toBe("/hooks/mail?k=1");
    } finally {
      await receiver.close();
    }
  });

  test("when set, loopback and private targets are accepted; link-local, metadata and odd spellings are not", async () => {
    const account = await makeAccount(allowed.ctx);
    for (const url of [
      "http://127.0.0.1:9/hook",
      "http://10.0.0.1/in",
      "http://[::1]:9/",
      "http://private.hooks.test/",
      "http://[fd12::1]/",
    ]) {
      const { endpoint } = await setWebhook(allowed.ctx.svc, { accountId: account.accountId, url, secret: SECRET });
      expect(endpoint.url).toBe(url);
    }
    const stillRefused: [string, string][] = [
      ["http://169.254.169.254/latest/meta-data/", "webhook url refused: 169.254.169.254 is a cloud metadata address"],
      ["http://169.254.10.1/", "webhook url refused: 169.254.10.1 is a link-local address"],
      ["http://[fe80::1]/", "webhook url refused: fe80::1 is a link-local address"],
      ["http://[fd00:ec2::254]/", "webhook url refused: fd00:ec2::254 is a cloud metadata address"],
      ["http://[::ffff:169.254.169.254]/", "webhook url refused: ::ffff:a9fe:a9fe is a cloud metadata address"],
      ["http://metadata.hooks.test/", "webhook url refused: metadata.hooks.test resolves to a cloud metadata address (169.254.169.254)"],
      ["http://linklocal.hooks.test/", "webhook url refused: linklocal.hooks.test resolves to a link-local address (fe80::1)"],
      [
        "http://2130706433/",
        "webhook url host 2130706433 is an unusual spelling of the address 127.0.0.1; write addresses as plain dotted quads",
      ],
    ];
    for (const [url, message] of stillRefused) {
      const error = await refusal(setWebhook(allowed.ctx.svc, { accountId: account.accountId, url, secret: SECRET }));
      expect({ url, body: error.body }).toEqual({ url, body: { error: message } });
    }
  });

  test("at the attempt, a metadata target stays refused (no connection)", async () => {
    const attempt = await firstAttempt(allowed, "http://169.254.169.254/latest/meta-data/", "stored");
    expect({ status: attempt.status, error: attempt.error }).toEqual({
      status: null,
      error: "refused: 169.254.169.254 is a cloud metadata address",
    });
  });

  test("an IPv6 literal is connected to over IPv6, with its bracketed Host", async () => {
    // The same ::1 receiver the refusal cases above must never reach.
    expect(v6).not.toBeNull();
    const before = v6!.requests.length;
    const port = new URL(v6!.url).port;
    const attempt = await firstAttempt(allowed, `http://[::1]:${port}/hooks/mail`);
    expect(attempt.status).toBe(200);
    const requests = await v6!.waitForRequests(before + 1);
    expect(requests[before]!.headers.host).toBe(`[::1]:${port}`);
  });
});
