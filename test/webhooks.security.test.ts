// Where webhooks may go. With WEBHOOK_ALLOW_PRIVATE_NETWORKS=false every loopback, private,
// link-local and metadata target is refused at attempt time (recorded as a failed attempt, no
// connection made: live receivers on those addresses see nothing); a non-http(s) URL is refused
// at configuration time. The POST connects to the address that was checked, never re-resolving.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError } from "../src/core/errors.ts";
import { listAttempts, setWebhook } from "../src/core/webhooks.ts";
import { isBlockedAddress, resolveWebhookTarget, UnsafeTargetError } from "../src/core/webhook-target.ts";
import { makeAccount, makeMailbox } from "./support/context.ts";
import { startDnsServer, type DnsServer } from "./support/dns-server.ts";
import { sendMail, waitFor } from "./support/smtp-client.ts";
import { startStack, stopStack, type Stack } from "./support/stack.ts";
import { startReceiver, type Receiver } from "./support/webhook-receiver.ts";

const SECRET = "whsec_security_tests_0123456789";

let mailCount = 0;

/** One account with its webhook at `url`, one personal-looking mail, and its first recorded attempt. */
async function firstAttempt(stack: Stack, url: string) {
  const account = await makeAccount(stack.ctx);
  const mailbox = await makeMailbox(stack.ctx, account);
  await setWebhook(stack.ctx.sql, { accountId: account.accountId, url, secret: SECRET });
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
  const [attempt] = await listAttempts(stack.ctx.sql, delivery.id);
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
    "127.0.0.1", "127.255.255.254", "0.0.0.0", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.1.10",
    "169.254.169.254", "100.64.0.1", "192.0.0.8", "198.18.0.1", "224.0.0.1", "255.255.255.255",
    "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "2001:db8::1",
    "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe",
    "not-an-address", "",
  ])("blocked: %p", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  test.each([
    "93.184.216.34", "8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.128.0.1", "11.0.0.1",
    "2606:4700::1", "2001:4860:4860::8888", "::ffff:93.184.216.34",
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
    const error = await setWebhook(stack.ctx.sql, { accountId: account.accountId, url, secret: SECRET }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.body).toEqual({ error: message });
    expect(await stack.ctx.sql`select 1 from webhook_endpoints where account_id = ${account.accountId}`).toHaveLength(0);
  });

  test("an http URL to a private address is accepted at configuration time (checked per attempt)", async () => {
    const account = await makeAccount(stack.ctx);
    const { endpoint } = await setWebhook(stack.ctx.sql, { accountId: account.accountId, url: "http://10.0.0.1/in", secret: SECRET });
    expect(endpoint).toMatchObject({ url: "http://10.0.0.1/in", enabled: true });
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
    const attempts = await Promise.all(cases.map(([url]) => firstAttempt(stack, url)));
    attempts.forEach((attempt, i) => {
      const [url, address] = cases[i]!;
      expect({ url, status: attempt.status, latency: attempt.latency_ms }).toEqual({ url, status: null, latency: null });
      expect(attempt.error).toMatch(/^refused: .+ resolves to a non-public address \(.+\)$/);
      expect(attempt.error).toContain(`(${address})`);
    });
    expect(v4.requests).toHaveLength(0);
    expect(v6?.requests ?? []).toHaveLength(0);
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
    const attempt = await firstAttempt(stack, `http://rebind.hooks.test:${new URL(v4.url).port}/hooks/mail`);
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
    expect({ address: ok.address, family: ok.family, host: ok.url.host }).toEqual({ address: "93.184.216.34", family: 4, host: "public.hooks.test" });
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
