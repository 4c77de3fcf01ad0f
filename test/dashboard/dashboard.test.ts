// The dashboard over real HTTP on loopback: sign-in and its failures, throttling per (email,
// client address) and per address with X-Forwarded-For believed only from trusted proxies,
// sessions that expire and
// end, CSRF and origin checks, one 404 for foreign and missing ids, escaping of hostile values,
// key secrets shown once, redrive of a dead letter produced by the real worker, and the
// require_approval toggle changing what POST /api/v1/send does.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { loadConfig } from "../../src/config.ts";
import { createUser } from "../../src/core/accounts/users.ts";
import { setWebhook } from "../../src/core/webhooks/endpoint.ts";
import { html, raw, reveal } from "../../src/dashboard/html.ts";
import { makeApp } from "../../src/http/app.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { makeLogger } from "../../src/log.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { cpuMsSince } from "../support/cpu-time.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";
import { reusableDataDir, sendMail, waitFor } from "../support/smtp-client.ts";
import { answer, type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const PASSWORD = "correct horse battery staple";
const HOSTILE = "<script>alert(1)</script>";

let ctx: TestContext;
let server: HttpServer;
let smtp: SmtpListener;
let worker: WorkerHandle;
let receiver: Receiver;
let dns: DnsServer;
let base: string;
let owner: Fixture;
let other: Fixture;
let mailbox: { id: string; address: string };
const ownerEmail = "alice@example.com";
const otherEmail = "bob@example.com";

type Reply = { status: number; text: string; headers: Headers };

/**
 * A cookie-keeping HTTP client that does not follow redirects, like a browser minus the rendering.
 * It talks to `origin` (the main server unless given) and adds `always` to every request.
 */
class Client {
  cookies = new Map<string, string>();
  constructor(
    readonly origin: string | null = null,
    readonly always: Record<string, string> = {},
  ) {}

  async send(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
    const all: Record<string, string> = { ...this.always, ...headers };
    if (this.cookies.size) all.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body: string | undefined;
    if (form) {
      body = new URLSearchParams(form).toString();
      all["content-type"] = "application/x-www-form-urlencoded";
      if (this.origin && !("origin" in all)) all.origin = this.origin;
    }
    const response = await fetch(`${this.origin ?? base}${path}`, { method, headers: all, body, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, value] = pair!.split("=") as [string, string];
      if (/Max-Age=0/.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, text: await response.text(), headers: response.headers };
  }
  get = (path: string) => this.send("GET", path);
  post = (path: string, form: Record<string, string>, headers?: Record<string, string>) => this.send("POST", path, form, headers);

  /** POST with the CSRF token of the page just read. */
  async act(pagePath: string, path: string, form: Record<string, string> = {}): Promise<Reply> {
    const page = await this.get(pagePath);
    return this.post(path, { csrf: csrfOf(page.text), ...form });
  }
}

function hidden(text: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(text);
  if (!match) throw new Error(`no ${name} field in page:\n${text.slice(0, 500)}`);
  return match[1]!;
}
const csrfOf = (text: string) => hidden(text, "csrf");

async function signIn(email: string, password: string, client = new Client(base)): Promise<{ client: Client; reply: Reply }> {
  const form = await client.get("/dashboard/login");
  const reply = await client.post("/dashboard/login", { login_token: hidden(form.text, "login_token"), email, password });
  return { client, reply };
}

async function signedIn(email: string): Promise<Client> {
  const { client, reply } = await signIn(email, PASSWORD);
  expect(reply.status).toBe(303);
  return client;
}

async function pendingDraft(subject: string, text = "Please approve me."): Promise<string> {
  await ctx.sql`update mailboxes set require_approval = true where id = ${mailbox.id}`;
  const sent = await ctx.request("POST", "/api/v1/send", {
    key: owner.key,
    body: { mailbox_id: mailbox.id, to: "carol@example.net", subject, text },
  });
  expect(sent.status).toBe(202);
  return sent.body.draft_id;
}

beforeAll(async () => {
  // Webhook URLs are resolved when set: the names the tests use live here.
  dns = await startDnsServer({ "hooks.example.com": { A: ["93.184.216.34"] }, "metadata.example.com": { A: ["169.254.169.254"] } });
  ctx = await makeTestContext({
    DNS_SERVERS: dns.address,
    HTTP_PORT: "0",
    DATA_DIR: reusableDataDir,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    WEBHOOK_RETRY_SCHEDULE: "0.1,0.1,0.1,0.1,0.1",
    WEBHOOK_TIMEOUT_MS: "1000",
  });
  server = startHttpServer(ctx.svc, ctx.app);
  base = `http://127.0.0.1:${server.port}`;
  smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  owner = await makeAccount(ctx);
  other = await makeAccount(ctx);
  mailbox = await makeMailbox(ctx, owner, "dash");
  await createUser(ctx.sql, { accountId: owner.accountId, email: ownerEmail, password: PASSWORD });
  await createUser(ctx.sql, { accountId: other.accountId, email: otherEmail, password: PASSWORD });
});

afterAll(async () => {
  await server?.stop();
  await worker?.stop();
  await smtp?.close();
  await receiver?.close();
  await ctx?.close();
  await dns?.close();
});

/** Each throttling test starts with no failed sign-ins recorded from anywhere. */
const forgetFailedSignIns = async () => {
  await ctx.sql`delete from dashboard_login_failures`;
};

describe("sign-in", () => {
  afterEach(forgetFailedSignIns);

  test("the right password opens a session: 303, a strict HttpOnly cookie scoped to /dashboard, security headers", async () => {
    const { client, reply } = await signIn(ownerEmail, PASSWORD);
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe("/dashboard");
    const cookie = reply.headers.getSetCookie().find((c) => c.startsWith("dashboard_session="))!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/dashboard");
    expect(cookie).not.toContain("Secure"); // plain http, and PUBLIC_BASE_URL is http
    const [row] =
      await ctx.sql`select count(*)::int as n from dashboard_sessions where token_hash = sha256(convert_to(${client.cookies.get("dashboard_session")!}, 'UTF8'))`;
    expect(row!.n).toBe(1); // stored as its SHA-256 only
    const overview = await client.get("/dashboard");
    expect(overview.status).toBe(200);
    expect(overview.text).toContain(ownerEmail);
    expect(overview.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(overview.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(overview.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(overview.headers.get("x-content-type-options")).toBe("nosniff");
    expect(overview.headers.get("referrer-policy")).toBe("no-referrer");
    expect(overview.headers.get("cache-control")).toBe("no-store");
    expect(overview.text).not.toContain("<script");
  });

  test("a wrong password and an unknown email get the same status and byte-identical page, in similar time", async () => {
    await createUser(ctx.sql, { accountId: owner.accountId, email: "timing@example.com", password: PASSWORD });
    const client = new Client(base);
    const token = hidden((await client.get("/dashboard/login")).text, "login_token");
    // CPU time of this process (the server and its argon2 thread are in it), not wall time: a
    // busy machine stretches the wall time of either answer, not the work each one does.
    const attempt = async (email: string) => {
      const started = process.cpuUsage();
      const reply = await client.post("/dashboard/login", { login_token: token, email, password: "wrong password here" });
      return { reply, ms: cpuMsSince(started) };
    };
    const wrongPassword = [await attempt("timing@example.com"), await attempt("timing@example.com")];
    const unknownEmail = [await attempt("nobody-1@example.com"), await attempt("nobody-2@example.com")];
    for (const { reply } of [...wrongPassword, ...unknownEmail]) {
      expect(reply.status).toBe(401);
      expect(reply.text).toBe(wrongPassword[0]!.reply.text);
      expect(reply.headers.getSetCookie().some((c) => c.startsWith("dashboard_session="))).toBe(false);
    }
    expect(wrongPassword[0]!.reply.text).toContain("Email or password is incorrect.");
    // Both run one full argon2id derivation; neither costs a fraction of the other's work.
    const fastest = (xs: { ms: number }[]) => Math.min(...xs.map((x) => x.ms));
    const ratio = fastest(unknownEmail) / fastest(wrongPassword);
    expect(ratio).toBeGreaterThan(0.4);
    expect(ratio).toBeLessThan(2.5);
  });

  test("after 5 failures for an email from one address, even the right password is refused there for a while (429)", async () => {
    await createUser(ctx.sql, { accountId: owner.accountId, email: "throttled@example.com", password: PASSWORD });
    for (let i = 0; i < 5; i++) expect((await signIn("throttled@example.com", "not the password")).reply.status).toBe(401);
    const blocked = await signIn("throttled@example.com", PASSWORD);
    expect(blocked.reply.status).toBe(429);
    expect(blocked.reply.text).toContain("Too many failed sign-ins");
    // Retry-After: when the oldest of the five leaves the 15-minute window.
    const retryAfter = Number(blocked.reply.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // The window slides: once the failures are old, the right password works again.
    await ctx.sql`update dashboard_login_failures set failed_at = now() - interval '16 minutes' where email = 'throttled@example.com'`;
    expect((await signIn("throttled@example.com", PASSWORD)).reply.status).toBe(303);
  });

  test("parallel guesses count against each other: of 12 at once, at most 5 get a password check", async () => {
    await createUser(ctx.sql, { accountId: owner.accountId, email: "parallel@example.com", password: PASSWORD });
    const client = new Client(base);
    const token = hidden((await client.get("/dashboard/login")).text, "login_token");
    const replies = await Promise.all(
      Array.from({ length: 12 }, () =>
        client.post("/dashboard/login", { login_token: token, email: "parallel@example.com", password: "guess" }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  });

  test("a sign-in POST without the form's login token, or from another origin, is refused", async () => {
    const client = new Client(base);
    await client.get("/dashboard/login");
    expect((await client.post("/dashboard/login", { email: ownerEmail, password: PASSWORD })).status).toBe(403);
    const token = client.cookies.get("dashboard_login")!;
    const foreign = await client.post(
      "/dashboard/login",
      { login_token: token, email: ownerEmail, password: PASSWORD },
      { origin: "https://evil.example" },
    );
    expect(foreign.status).toBe(403);
  });

  test("pages need a session: without one, GET redirects to the sign-in page and POST changes nothing", async () => {
    const anonymous = new Client(base);
    const page = await anonymous.get("/dashboard/keys");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/dashboard/login");
    const before = await ctx.sql`select count(*)::int as n from send_list_entries`;
    expect((await anonymous.post("/dashboard/sendlists", { kind: "block", pattern: "x.example" })).status).toBe(303);
    expect(await ctx.sql`select count(*)::int as n from send_list_entries`).toEqual(before);
  });
});

describe("sign-in throttling by client address", () => {
  // A second server on the same database whose config trusts loopback (where the tests' requests
  // come from) and 198.51.100.0/24 as proxies; the main server trusts none.
  let proxiedSvc: typeof ctx.svc;
  let proxied: HttpServer;
  let proxiedApp: ReturnType<typeof makeApp>;
  let proxiedBase: string;
  const from = (address: string) => new Client(proxiedBase, { "x-forwarded-for": address });
  const clientOf = async (email: string) =>
    (await ctx.sql`select client from dashboard_login_failures where email = ${email}`).map((row) => row.client);

  beforeAll(async () => {
    const config = { ...ctx.config, trustedProxies: loadConfig({ TRUSTED_PROXIES: "127.0.0.1, 198.51.100.0/24" }).trustedProxies };
    proxiedSvc = { ...ctx.svc, config };
    proxiedApp = makeApp(proxiedSvc);
    proxied = startHttpServer(proxiedSvc, proxiedApp);
    proxiedBase = `http://127.0.0.1:${proxied.port}`;
    await createUser(ctx.sql, { accountId: owner.accountId, email: "operator@example.com", password: PASSWORD });
  });
  afterAll(async () => {
    await proxied?.stop();
  });
  afterEach(forgetFailedSignIns);

  test("a locked-out (email, address A) pair does not lock the same email out from address B", async () => {
    const attacker = "203.0.113.10";
    for (let i = 0; i < 5; i++) expect((await signIn("operator@example.com", "not the password", from(attacker))).reply.status).toBe(401);
    expect(await clientOf("operator@example.com")).toEqual([attacker, attacker, attacker, attacker, attacker]);
    const locked = await signIn("operator@example.com", PASSWORD, from(attacker));
    expect(locked.reply.status).toBe(429);
    expect(locked.reply.text).toContain("Too many failed sign-ins for this email.");
    // The operator, elsewhere, signs in; that forgives only the operator's own pair.
    expect((await signIn("operator@example.com", PASSWORD, from("203.0.113.20"))).reply.status).toBe(303);
    expect((await signIn("operator@example.com", PASSWORD, from(attacker))).reply.status).toBe(429);
    expect(await clientOf("operator@example.com")).toHaveLength(5);
  });

  test("the per-address cap trips across different emails (spraying), and only for that address", async () => {
    const lines: string[] = [];
    const saved = proxiedSvc.log;
    proxiedSvc.log = makeLogger("info", (line) => lines.push(line));
    const sprayer = "203.0.113.30";
    try {
      for (let i = 0; i < 20; i++) expect((await signIn(`sprayed-${i}@example.com`, "Winter2024!", from(sprayer))).reply.status).toBe(401);
      const next = await signIn("sprayed-20@example.com", "Winter2024!", from(sprayer));
      expect(next.reply.status).toBe(429);
      expect(next.reply.text).toContain("Too many failed sign-ins from your network.");
      // Even a right password is refused from there, though this email has no failure of its own...
      expect((await signIn("operator@example.com", PASSWORD, from(sprayer))).reply.status).toBe(429);
      expect(await clientOf("operator@example.com")).toEqual([]);
      // ...and the same emails are not locked from anywhere else.
      expect((await signIn("sprayed-3@example.com", "another guess", from("203.0.113.31"))).reply.status).toBe(401);
      expect((await signIn("operator@example.com", PASSWORD, from("203.0.113.31"))).reply.status).toBe(303);
      const logins = lines.map((line) => JSON.parse(line)).filter((entry) => entry.event === "dashboard.action");
      expect(logins.filter((entry) => entry.reason === "throttled")).toEqual([
        expect.objectContaining({ action: "login", outcome: "rejected", limit: "client", client: sprayer }),
        expect.objectContaining({ action: "login", outcome: "rejected", limit: "client", client: sprayer }),
      ]);
      expect(logins.at(-1)).toMatchObject({ action: "login", outcome: "ok", client: "203.0.113.31" });
      for (const line of lines) for (const secret of ["Winter2024!", PASSWORD, "another guess"]) expect(line).not.toContain(secret);
    } finally {
      proxiedSvc.log = saved;
    }
  });

  test("X-Forwarded-For is ignored when the peer is not a trusted proxy: it cannot dodge the pair limit", async () => {
    // The main server trusts no proxy (the default), so every request here is loopback's.
    for (let i = 0; i < 5; i++) {
      const client = new Client(base, { "x-forwarded-for": `198.18.0.${i + 1}` });
      expect((await signIn("operator@example.com", "not the password", client)).reply.status).toBe(401);
    }
    expect(await clientOf("operator@example.com")).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1"]);
    const dodge = await signIn("operator@example.com", PASSWORD, new Client(base, { "x-forwarded-for": "198.18.0.99" }));
    expect(dodge.reply.status).toBe(429);
    // A server that trusts proxies, but not this peer, ignores the header too.
    const elsewhereSvc = {
      ...ctx.svc,
      config: { ...ctx.config, trustedProxies: loadConfig({ TRUSTED_PROXIES: "10.0.0.0/8" }).trustedProxies },
    };
    const elsewhere = startHttpServer(elsewhereSvc, makeApp(elsewhereSvc));
    try {
      const client = new Client(`http://127.0.0.1:${elsewhere.port}`, { "x-forwarded-for": "10.1.1.1" });
      expect((await signIn("untrusted-peer@example.com", "not the password", client)).reply.status).toBe(401);
      expect(await clientOf("untrusted-peer@example.com")).toEqual(["127.0.0.1"]);
    } finally {
      await elsewhere.stop();
    }
  });

  test("X-Forwarded-For from a trusted peer is believed: the rightmost hop that is not a trusted proxy", async () => {
    const cases: [string, string][] = [
      ["203.0.113.50", "203.0.113.50"],
      // Whatever the client wrote on the left is not believed; a trusted proxy's hop is skipped.
      ["6.6.6.6, 203.0.113.51, 198.51.100.9", "203.0.113.51"],
      ["203.0.113.52:4711", "203.0.113.52"],
      // IPv6 clients count per /64; an IPv4-mapped address is the IPv4 client.
      ["[2001:DB8:1:2::5]:443", "2001:db8:1:2::/64"],
      ["::ffff:203.0.113.53", "203.0.113.53"],
      // Every hop trusted: the leftmost. An unreadable hop stops the walk at the last one known.
      ["198.51.100.1, 198.51.100.2", "198.51.100.1"],
      ["garbage, 198.51.100.3", "198.51.100.3"],
      ["not-an-ip", "127.0.0.1"],
      ["", "127.0.0.1"],
    ];
    for (const [header, expected] of cases) {
      const email = `xff-${cases.findIndex((c) => c[0] === header)}@example.com`;
      expect((await signIn(email, "not the password", from(header))).reply.status).toBe(401);
      expect({ header, client: await clientOf(email) }).toEqual({ header, client: [expected] });
    }
  });

  test("the app handed a request without a peer (no server in front) believes no header at all", async () => {
    const page = await proxiedApp.handle(new Request("http://localhost/dashboard/login"));
    const token = hidden(await page.text(), "login_token");
    const reply = await proxiedApp.handle(
      new Request("http://localhost/dashboard/login", {
        method: "POST",
        headers: {
          cookie: `dashboard_login=${token}`,
          "content-type": "application/x-www-form-urlencoded",
          "x-forwarded-for": "203.0.113.60",
        },
        body: new URLSearchParams({ login_token: token, email: "no-peer@example.com", password: "not the password" }).toString(),
      }),
    );
    expect(reply.status).toBe(401);
    expect(await clientOf("no-peer@example.com")).toEqual(["unknown"]);
  });
});

describe("sessions", () => {
  const sessionRow = (client: Client) => ctx.sql`sha256(convert_to(${client.cookies.get("dashboard_session")!}, 'UTF8'))`;

  test("12 hours idle ends a session", async () => {
    const client = await signedIn(ownerEmail);
    expect((await client.get("/dashboard/keys")).status).toBe(200);
    await ctx.sql`update dashboard_sessions set last_seen_at = now() - interval '12 hours 1 minute' where token_hash = ${sessionRow(client)}`;
    const expired = await client.get("/dashboard/keys");
    expect(expired.status).toBe(303);
    expect(expired.headers.get("location")).toBe("/dashboard/login");
  });

  test("7 days ends a session however active it is", async () => {
    const client = await signedIn(ownerEmail);
    await ctx.sql`update dashboard_sessions set created_at = now() - interval '7 days 1 minute' where token_hash = ${sessionRow(client)}`;
    expect((await client.get("/dashboard")).status).toBe(303);
  });

  test("sign-out deletes the session: the old cookie no longer works", async () => {
    const client = await signedIn(ownerEmail);
    const token = client.cookies.get("dashboard_session")!;
    const out = await client.act("/dashboard", "/dashboard/logout");
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/dashboard/login");
    expect(client.cookies.has("dashboard_session")).toBe(false);
    const [row] = await ctx.sql`select count(*)::int as n from dashboard_sessions where token_hash = sha256(convert_to(${token}, 'UTF8'))`;
    expect(row!.n).toBe(0);
    client.cookies.set("dashboard_session", token);
    expect((await client.get("/dashboard")).status).toBe(303);
  });
});

describe("CSRF", () => {
  const entries = () => ctx.sql`select count(*)::int as n from send_list_entries where account_id = ${owner.accountId}`;

  test("a POST with a missing, wrong or another session's token is 403 and changes nothing", async () => {
    const client = await signedIn(ownerEmail);
    const bob = await signedIn(otherEmail);
    const bobsToken = csrfOf((await bob.get("/dashboard")).text);
    const before = await entries();
    const form = { kind: "block", pattern: "csrf.example" };
    expect((await client.post("/dashboard/sendlists", form)).status).toBe(403);
    expect((await client.post("/dashboard/sendlists", { ...form, csrf: "x".repeat(43) })).status).toBe(403);
    const refused = await client.post("/dashboard/sendlists", { ...form, csrf: bobsToken });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Request refused");
    expect(await entries()).toEqual(before);
  });

  test("a POST with the right token but a foreign Origin is 403", async () => {
    const client = await signedIn(ownerEmail);
    const csrf = csrfOf((await client.get("/dashboard/sendlists")).text);
    const reply = await client.post(
      "/dashboard/sendlists",
      { csrf, kind: "block", pattern: "origin.example" },
      { origin: "https://evil.example" },
    );
    expect(reply.status).toBe(403);
    const crossSite = await client.post(
      "/dashboard/sendlists",
      { csrf, kind: "block", pattern: "origin.example" },
      { "sec-fetch-site": "cross-site" },
    );
    expect(crossSite.status).toBe(403);
    const ok = await client.post("/dashboard/sendlists", { csrf, kind: "block", pattern: "origin.example" });
    expect(ok.status).toBe(303);
  });

  test("`Origin: null` (what no-referrer makes Chromium send on our own forms) passes only when Sec-Fetch-Site says same-origin", async () => {
    const client = await signedIn(ownerEmail);
    const csrf = csrfOf((await client.get("/dashboard/sendlists")).text);
    const form = { csrf, kind: "block", pattern: "null-origin.example" };
    expect((await client.post("/dashboard/sendlists", form, { origin: "null" })).status).toBe(403);
    expect((await client.post("/dashboard/sendlists", form, { origin: "null", "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await client.post("/dashboard/sendlists", form, { origin: "null", "sec-fetch-site": "same-origin" })).status).toBe(303);
  });
});

describe("the html helper", () => {
  test("escapes every interpolated value, in text and attributes, unless wrapped by raw() or built by html", () => {
    const value = `"'<>&\``;
    const out =
      html`<a title="${value}">${value}${[value, html`<b>${value}</b>`]}${raw("<i>trusted</i>")}${null}${undefined}${false}${0}</a>`.value;
    expect(out).toBe(
      '<a title="&quot;&#39;&lt;&gt;&amp;&#96;">&quot;&#39;&lt;&gt;&amp;&#96;&quot;&#39;&lt;&gt;&amp;&#96;<b>&quot;&#39;&lt;&gt;&amp;&#96;</b><i>trusted</i>0</a>',
    );
  });

  test("reveal() escapes, and shows invisible characters as markers while keeping line breaks and tabs", () => {
    expect(reveal("<b>\u202Eab\u{E0041}\n\tc\u200B").value).toBe(
      '&lt;b&gt;<mark class="hidden-char">U+202E</mark>ab<mark class="hidden-char">U+E0041</mark>\n\tc<mark class="hidden-char">U+200B</mark>',
    );
  });
});

describe("another account's ids are the same 404 as missing ones", () => {
  test("keys, send list entries, drafts, mailboxes and deliveries", async () => {
    const alice = await signedIn(ownerEmail);
    const bob = await signedIn(otherEmail);
    const draftId = await pendingDraft("Cross-account probe");
    const keyId = owner.keyId;
    const entryPage = await alice.act("/dashboard/sendlists", "/dashboard/sendlists", { kind: "block", pattern: "probe.example" });
    expect(entryPage.status).toBe(303);
    const [entry] = await ctx.sql`select id from send_list_entries where account_id = ${owner.accountId} and pattern = 'probe.example'`;
    const [account] = await ctx.sql`select id from accounts where id = ${owner.accountId}`;
    expect(account).toBeDefined();

    const [{ id: ownerUserId }] = await ctx.sql`select id from dashboard_users where email = ${ownerEmail}`;
    const probes: [string, string, Record<string, string>][] = [
      ["/dashboard/keys/ID/revoke", keyId, {}],
      ["/dashboard/sendlists/ID/remove", entry!.id, {}],
      ["/dashboard/approvals/ID/approve", draftId, {}],
      ["/dashboard/approvals/ID/reject", draftId, {}],
      ["/dashboard/mailboxes/ID/settings", mailbox.id, { require_approval: "off" }],
      ["/dashboard/mailboxes/ID/settings", mailbox.id, { paused: "on" }],
      ["/dashboard/mailboxes/ID/settings", mailbox.id, { review_window_hours: "5" }],
      ["/dashboard/mailboxes/ID/settings", mailbox.id, { review_window_hours: "0" }],
      ["/dashboard/people/ID/reviews", ownerUserId, { reviews: "off" }],
      ["/dashboard/webhook/deliveries/ID/redrive", "whd_doesnotexist", {}],
    ];
    const csrf = csrfOf((await bob.get("/dashboard")).text);
    for (const [template, realId, form] of probes) {
      const foreign = await bob.post(template.replace("ID", realId), { csrf, ...form });
      const missing = await bob.post(template.replace("ID", `${realId.slice(0, 4)}zzzzzzzzzzzzzzzzzzzzzzzz`), { csrf, ...form });
      expect([template, foreign.status]).toEqual([template, 404]);
      expect(foreign.text).toBe(missing.text);
    }
    // Ids inside a form are checked too: Bob cannot bind a key or a send-list entry to Alice's mailbox.
    const keysBefore = await ctx.sql`select count(*)::int as n from api_keys`;
    for (const [path, form] of [
      ["/dashboard/keys", { scope: "api" }],
      ["/dashboard/sendlists", { kind: "block", pattern: "x.example" }],
    ] as const) {
      const foreign = await bob.post(path, { csrf, ...form, mailbox_id: mailbox.id });
      const missing = await bob.post(path, { csrf, ...form, mailbox_id: "mbx_zzzzzzzzzzzzzzzzzzzzzzzz" });
      expect([path, foreign.status]).toEqual([path, 404]);
      expect(foreign.text).toBe(missing.text);
    }
    expect(await ctx.sql`select count(*)::int as n from api_keys`).toEqual(keysBefore);
    expect(await ctx.sql`select 1 from send_list_entries where mailbox_id = ${mailbox.id}`).toHaveLength(0);

    const detailForeign = await bob.get(`/dashboard/webhook/deliveries/whd_${"z".repeat(24)}`);
    expect(detailForeign.status).toBe(404);
    expect(detailForeign.text).toBe((await bob.get("/dashboard/no/such/page")).text);

    // Nothing of Alice's changed.
    expect((await ctx.sql`select revoked_at from api_keys where id = ${keyId}`)[0]!.revoked_at).toBeNull();
    expect(await ctx.sql`select 1 from send_list_entries where id = ${entry!.id}`).toHaveLength(1);
    expect((await ctx.sql`select status from drafts where id = ${draftId}`)[0]!.status).toBe("pending_approval");
    expect((await ctx.sql`select require_approval from mailboxes where id = ${mailbox.id}`)[0]!.require_approval).toBe(true);
    // Bob's pages list nothing of Alice's.
    expect((await bob.get("/dashboard/approvals")).text).not.toContain(draftId);
    expect((await bob.get("/dashboard/keys")).text).not.toContain(keyId.slice(0, 10));
    expect((await bob.get("/dashboard/mailboxes")).text).not.toContain(mailbox.address);
  });
});

describe("escaping", () => {
  test("a hostile subject and text in the approval queue render as text, never as markup", async () => {
    const draftId = await pendingDraft(`Invoice ${HOSTILE}`, `Hello ${HOSTILE} "quoted" & 'single' <img src=x onerror=alert(2)>`);
    const client = await signedIn(ownerEmail);
    const page = await client.get("/dashboard/approvals");
    expect(page.status).toBe(200);
    expect(page.text).toContain(draftId);
    expect(page.text).not.toContain(HOSTILE);
    expect(page.text).not.toContain("<img");
    expect(page.text).toContain("Invoice &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page.text).toContain("&quot;quoted&quot; &amp; &#39;single&#39;");
    expect(page.text).not.toMatch(/<script/i);
  });

  test("the approval queue lists every attachment's name, type and size, names escaped", async () => {
    await ctx.sql`update mailboxes set require_approval = true where id = ${mailbox.id}`;
    const created = await ctx.request("POST", "/api/v1/drafts", {
      key: owner.key,
      body: { mailbox_id: mailbox.id, to: "carol@example.net", subject: "With files", text: "Two files." },
    });
    for (const [name, type, content] of [
      ["<img src=x onerror=alert(3)>.txt", "text/plain", "hello"],
      ["figures.csv", "text/csv", "a,b\n".repeat(1000)],
    ] as const) {
      const form = new FormData();
      form.append("file", new File([content], name, { type }));
      const response = await fetch(`${base}/api/v1/drafts/${created.body.id}/attachments`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.key}` },
        body: form,
      });
      expect(response.status).toBe(201);
    }
    expect((await ctx.request("POST", `/api/v1/drafts/${created.body.id}/send`, { key: owner.key })).status).toBe(202);
    const page = await (await signedIn(ownerEmail)).get("/dashboard/approvals");
    const row = page.text.slice(page.text.indexOf(`id="draft-${created.body.id}"`));
    expect(row).toContain('<span class="attachment-name">&lt;img src=x onerror=alert(3)&gt;.txt</span> <small>text/plain, 5 bytes</small>');
    expect(row).toContain('<span class="attachment-name">figures.csv</span> <small>text/csv, 3.9 KiB</small>');
    expect(page.text).not.toContain("<img src=x");
  });

  test("a hostile user email in the page frame renders as text", async () => {
    const email = `${HOSTILE}@example.com`;
    await createUser(ctx.sql, { accountId: owner.accountId, email, password: PASSWORD });
    const client = await signedIn(email);
    const page = await client.get("/dashboard");
    expect(page.text).not.toContain(HOSTILE);
    expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;@example.com");
  });
});

describe("API keys", () => {
  test("a created key's secret is shown once, works, and is gone from every later page; revoke ends it", async () => {
    const client = await signedIn(ownerEmail);
    const created = await client.act("/dashboard/keys", "/dashboard/keys", { scope: "api", name: "from the dashboard", can_read: "on" });
    expect(created.status).toBe(201);
    const secret = /<code class="secret-value">(svc_[A-Za-z0-9_-]+)<\/code>/.exec(created.text)?.[1];
    expect(secret).toBeDefined();
    expect(created.text).toContain("only time the secret is shown");
    // can_send was unchecked: the key reads but cannot send.
    const [key] = await ctx.sql`select id, scope, can_read, can_send, mailbox_id from api_keys where name = 'from the dashboard'`;
    expect(key).toMatchObject({ scope: "api", can_read: true, can_send: false, mailbox_id: null });
    expect((await ctx.request("GET", "/api/v1/mailboxes", { key: secret! })).status).toBe(200);
    const later = await client.get("/dashboard/keys");
    expect(later.text).not.toContain(secret!);
    expect(later.text).toContain(secret!.slice(0, 10));
    const revoked = await client.act("/dashboard/keys", `/dashboard/keys/${key!.id}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await client.get(revoked.headers.get("location")!)).text).toContain("The key was revoked.");
    expect((await ctx.request("GET", "/api/v1/mailboxes", { key: secret! })).status).toBe(401);
  });

  test("a key bound to a mailbox; a bad scope is 400 and creates nothing", async () => {
    const client = await signedIn(ownerEmail);
    const bound = await client.act("/dashboard/keys", "/dashboard/keys", {
      scope: "mcp",
      name: "bound",
      mailbox_id: mailbox.id,
      can_read: "on",
      can_send: "on",
    });
    expect(bound.status).toBe(201);
    expect((await ctx.sql`select mailbox_id, scope from api_keys where name = 'bound'`)[0]).toEqual({
      mailbox_id: mailbox.id,
      scope: "mcp",
    });
    const before = await ctx.sql`select count(*)::int as n from api_keys`;
    const bad = await client.act("/dashboard/keys", "/dashboard/keys", { scope: "root" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("Scope must be one of bootstrap, api, mcp.");
    expect(await ctx.sql`select count(*)::int as n from api_keys`).toEqual(before);
  });
});

describe("audit log", () => {
  test("one JSON line per action, with ids and outcome, and never a secret, a password or a token", async () => {
    const lines: string[] = [];
    const saved = ctx.svc.log;
    ctx.svc.log = makeLogger("info", (line) => lines.push(line));
    try {
      const { client } = await signIn(ownerEmail, PASSWORD);
      const page = await client.get("/dashboard/keys");
      const created = await client.post("/dashboard/keys", { csrf: csrfOf(page.text), scope: "api", name: "audited" });
      const secret = /<code class="secret-value">(svc_[A-Za-z0-9_-]+)<\/code>/.exec(created.text)![1]!;
      await client.post("/dashboard/keys", { csrf: "wrong", scope: "api" });
      const actions = lines.map((line) => JSON.parse(line)).filter((entry) => entry.event === "dashboard.action");
      expect(actions.map((a) => [a.action, a.outcome])).toEqual([
        ["login", "ok"],
        ["key.create", "ok"],
        ["key.create", "rejected"],
      ]);
      expect(actions[1]).toMatchObject({ status: 201, scope: "api", account_id: owner.accountId });
      expect(actions[1].key_id).toStartWith("key_");
      expect(actions[2]).toMatchObject({ status: 403, reason: "csrf" });
      for (const line of lines) {
        for (const secretValue of [secret, PASSWORD, client.cookies.get("dashboard_session")!, csrfOf(page.text)])
          expect(line).not.toContain(secretValue);
      }
    } finally {
      ctx.svc.log = saved;
    }
  });
});

describe("approval queue and require_approval", () => {
  test("toggling require_approval in the dashboard changes what POST /api/v1/send does", async () => {
    const client = await signedIn(ownerEmail);
    const send = (subject: string) =>
      ctx.request("POST", "/api/v1/send", {
        key: owner.key,
        body: { mailbox_id: mailbox.id, to: "dave@example.net", subject, text: "Hi" },
      });
    const on = await client.act("/dashboard/mailboxes", `/dashboard/mailboxes/${mailbox.id}/settings`, { require_approval: "on" });
    expect(on.status).toBe(303);
    const queued = await send("queued");
    expect(queued.status).toBe(202);
    expect(queued.body.status).toBe("pending_approval");
    const off = await client.act("/dashboard/mailboxes", `/dashboard/mailboxes/${mailbox.id}/settings`, { require_approval: "off" });
    expect(off.status).toBe(303);
    expect((await send("direct")).status).toBe(201);
    const page = await client.get("/dashboard/mailboxes?done=mailbox_updated");
    expect(page.text).toContain("The mailbox settings were saved.");
  });

  test("approve sends through the pipeline and the draft leaves the queue; reject tombstones", async () => {
    const toApprove = await pendingDraft("Approve me");
    const toReject = await pendingDraft("Reject me");
    const client = await signedIn(ownerEmail);
    expect((await client.get("/dashboard/approvals")).text).toContain(toApprove);
    const approved = await client.act("/dashboard/approvals", `/dashboard/approvals/${toApprove}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.text).toContain("Approved and sent");
    expect(approved.text).not.toContain(`draft-${toApprove}`);
    const [approvedRow] = await ctx.sql`select status, decided_by, sent_message_id from drafts where id = ${toApprove}`;
    expect(approvedRow).toMatchObject({ status: "sent" });
    expect(approvedRow!.decided_by).toStartWith("dashboard:usr_");
    // Sent through the real pipeline: an outbound message row exists for it.
    expect((await ctx.sql`select direction, to_addr from messages where id = ${approvedRow!.sent_message_id}`)[0]).toEqual({
      direction: "out",
      to_addr: "carol@example.net",
    });
    const rejected = await client.act("/dashboard/approvals", `/dashboard/approvals/${toReject}/reject`);
    expect(rejected.status).toBe(303);
    expect((await ctx.sql`select status from drafts where id = ${toReject}`)[0]!.status).toBe("rejected");
    // Approving again: the draft is gone, the one 404.
    expect((await client.act("/dashboard/approvals", `/dashboard/approvals/${toApprove}/approve`)).status).toBe(404);
  });

  test("two approvals of one draft at once send it once; the loser is told someone else acted", async () => {
    const draftId = await pendingDraft("Double click");
    const client = await signedIn(ownerEmail);
    const csrf = csrfOf((await client.get("/dashboard/approvals")).text);
    const replies = await Promise.all([1, 2, 3].map(() => client.post(`/dashboard/approvals/${draftId}/approve`, { csrf })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    for (const loser of replies.filter((r) => r.status !== 200)) expect([404, 409]).toContain(loser.status);
    const [row] = await ctx.sql`select status, sent_message_id from drafts where id = ${draftId}`;
    expect(row!.status).toBe("sent");
    expect((await ctx.sql`select count(*)::int as n from messages where subject = 'Double click' and direction = 'out'`)[0]!.n).toBe(1);
  });

  test("an approval the send lists refuse says so and leaves the draft queued", async () => {
    const draftId = await pendingDraft("Blocked recipient");
    const client = await signedIn(ownerEmail);
    expect((await client.act("/dashboard/sendlists", "/dashboard/sendlists", { kind: "block", pattern: "carol@example.net" })).status).toBe(
      303,
    );
    const refused = await client.act("/dashboard/approvals", `/dashboard/approvals/${draftId}/approve`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("matches a block entry of the account send list");
    expect((await ctx.sql`select status from drafts where id = ${draftId}`)[0]!.status).toBe("pending_approval");
    await ctx.sql`delete from send_list_entries where pattern = 'carol@example.net'`;
  });
});

describe("what a human approves is what they saw", () => {
  test("the queue shows a draft's whole text, not a preview whose tail goes out unseen", async () => {
    const tail = "P.S. wire the funds to account 99-ATTACKER today.";
    const draftId = await pendingDraft("Long one", `${"Routine status update. ".repeat(40)}\n${tail}`);
    const client = await signedIn(ownerEmail);
    const page = await client.get("/dashboard/approvals");
    const row = page.text.split(`id="draft-${draftId}"`)[1]!.split("</article>")[0]!;
    expect(row).toContain(tail);
    await ctx.sql`update drafts set status = 'rejected' where id = ${draftId}`;
  });

  test("invisible and direction-changing characters are shown as visible markers", async () => {
    // U+202E turns "moc.live" into "evil.com" on screen; U+200B and U+2066 are invisible. Send now
    // refuses U+202E and control characters, so the row is written as an older draft could be.
    const draftId = await pendingDraft("Pay now");
    await ctx.sql`update drafts set subject = ${"Pay \u202Emoc.live\u202C now"}, text = ${"Visit exa\u200Bmple.com \u2066hidden\u2069 and \u0007 bell."} where id = ${draftId}`;
    const client = await signedIn(ownerEmail);
    const page = await client.get("/dashboard/approvals");
    const row = page.text.split(`id="draft-${draftId}"`)[1]!.split("</article>")[0]!;
    for (const char of ["\u202E", "\u202C", "\u200B", "\u2066", "\u2069", "\u0007"]) expect(row).not.toContain(char);
    expect(row).toContain("U+202E");
    expect(row).toContain("U+200B");
    expect(row).toContain("U+2066");
    expect(row).toContain("U+0007");
    // Line breaks are layout, not hidden text: kept as they are.
    await ctx.sql`update drafts set status = 'rejected' where id = ${draftId}`;
  });

  test("the queue page is bounded: a key cannot flood it into an unrenderable page", async () => {
    const seed = await pendingDraft("Flood seed");
    const [{ columns }] = await ctx.sql`
      select string_agg(quote_ident(column_name), ', ') as columns from information_schema.columns
      where table_name = 'drafts' and column_name <> 'id'`;
    await ctx.sql.unsafe(
      `insert into drafts (id, ${columns}) select 'drf_flood' || g, ${columns} from drafts, generate_series(1, 120) g where id = $1`,
      [seed],
    );
    const client = await signedIn(ownerEmail);
    const page = await client.get("/dashboard/approvals");
    expect(page.status).toBe(200);
    const rows = page.text.match(/<article class="review" id="draft-/g) ?? [];
    expect(rows.length).toBe(50);
    expect(page.text).toMatch(/Showing the oldest 50 of \d+ waiting drafts/);
    await ctx.sql`update drafts set status = 'rejected' where id like 'drf_flood%' or id = ${seed}`;
  });
});

describe("webhook", () => {
  test("set shows the generated secret once; an unsafe URL shows core's message", async () => {
    const client = await signedIn(otherEmail);
    const bad = await client.act("/dashboard/webhook", "/dashboard/webhook", { url: "ftp://example.com/hook" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("webhook url must be http or https");
    // Resolved when set: metadata is refused even with private networks allowed, and says why.
    for (const [url, reason] of [
      [
        "http://metadata.example.com/latest",
        "webhook url refused: metadata.example.com resolves to a cloud metadata address (169.254.169.254)",
      ],
      [
        "http://0x7f.1/hook",
        "webhook url host 0x7f.1 is an unusual spelling of the address 127.0.0.1; write addresses as plain dotted quads",
      ],
      ["http://[fe80::1]/hook", "webhook url refused: fe80::1 is a link-local address"],
    ]) {
      const refused = await client.act("/dashboard/webhook", "/dashboard/webhook", { url: url! });
      expect({ url, status: refused.status }).toEqual({ url, status: 400 });
      expect(refused.text).toContain(reason!);
    }
    expect((await client.get("/dashboard/webhook")).text).toContain("No webhook is configured");
    const set = await client.act("/dashboard/webhook", "/dashboard/webhook", { url: "https://hooks.example.com/mail" });
    expect(set.status).toBe(200);
    const secret = /<code class="secret-value">(whsec_[A-Za-z0-9+/=_-]+)<\/code>/.exec(set.text)?.[1];
    expect(secret).toBeDefined();
    const later = await client.get("/dashboard/webhook");
    expect(later.text).not.toContain(secret!);
    expect(later.text).toContain("https://hooks.example.com/mail");
    expect((await client.act("/dashboard/webhook", "/dashboard/webhook/disable")).status).toBe(303);
    expect((await client.get("/dashboard/webhook")).text).toContain("disabled");
  });

  test("a given Standard Webhooks secret (whsec_ + base64) is accepted and not echoed back", async () => {
    const client = await signedIn(otherEmail);
    const given = `whsec_${btoa("a given secret of thirty-two b!!")}`;
    const set = await client.act("/dashboard/webhook", "/dashboard/webhook", { url: "https://hooks.example.com/given", secret: given });
    expect(set.status).toBe(200);
    expect(set.text).toContain("with the given secret");
    expect(set.text).not.toContain(given);
    const [row] = await ctx.sql`select secret from webhook_endpoints where account_id = ${other.accountId}`;
    expect(row!.secret).toBe(given);
    expect((await client.act("/dashboard/webhook", "/dashboard/webhook/disable")).status).toBe(303);
  });

  test("a dead-lettered delivery is listed first and redriven with the same event_id until delivered", async () => {
    // The receiver fails the whole first cycle (6 attempts), then acknowledges.
    receiver = await startReceiver((request, response, index) => answer(index < 6 ? 500 : 200)(request, response, index));
    await setWebhook(ctx.svc, { accountId: owner.accountId, url: receiver.url, secret: "whsec_dashboard_tests_0123456789" });
    await sendMail(smtp.port, {
      from: "maya@example.org",
      to: mailbox.address,
      subject: "Book club notes",
      text: "Hi Jo,\n\nThanks for hosting yesterday. Could you send me the notes from the book club?\n\nCheers,\nMaya",
    });
    const dead = await waitFor(
      async () => {
        const [row] =
          await ctx.sql`select id, event_id, state from webhook_deliveries where account_id = ${owner.accountId} and state = 'dead'`;
        return row;
      },
      "the delivery to be dead-lettered",
      90_000,
    );
    const client = await signedIn(ownerEmail);
    const list = await client.get("/dashboard/webhook?state=dead");
    expect(list.text).toContain(dead.id);
    const detail = await client.get(`/dashboard/webhook/deliveries/${dead.id}`);
    expect(detail.status).toBe(200);
    const attempts = detail.text.split("<h2>Attempts</h2>")[1]!;
    expect(attempts.match(/<td>500<\/td>/g)?.length).toBe(6);

    // Another account's human sees and redrives nothing of it: the one 404, the letter stays dead.
    const bob = await signedIn(otherEmail);
    const bobCsrf = csrfOf((await bob.get("/dashboard")).text);
    const missingId = `whd_${"z".repeat(24)}`;
    expect((await bob.get(`/dashboard/webhook/deliveries/${dead.id}`)).text).toBe(
      (await bob.get(`/dashboard/webhook/deliveries/${missingId}`)).text,
    );
    const foreignRedrive = await bob.post(`/dashboard/webhook/deliveries/${dead.id}/redrive`, { csrf: bobCsrf });
    expect(foreignRedrive.status).toBe(404);
    expect(foreignRedrive.text).toBe((await bob.post(`/dashboard/webhook/deliveries/${missingId}/redrive`, { csrf: bobCsrf })).text);
    expect((await ctx.sql`select state from webhook_deliveries where id = ${dead.id}`)[0]!.state).toBe("dead");
    expect((await bob.get("/dashboard/webhook")).text).not.toContain(dead.id);

    const redriven = await client.act("/dashboard/webhook", `/dashboard/webhook/deliveries/${dead.id}/redrive`);
    expect(redriven.status).toBe(303);
    expect(redriven.headers.get("location")).toBe("/dashboard/webhook?done=redriven");
    const delivered = await waitFor(
      async () => {
        const [row] = await ctx.sql`select state, redrives from webhook_deliveries where id = ${dead.id} and state = 'delivered'`;
        return row;
      },
      "the redriven delivery to succeed",
      60_000,
    );
    expect(delivered.redrives).toBe(1);
    const requests = await receiver.waitForRequests(7);
    expect(requests.map((r) => JSON.parse(r.text).event_id)).toEqual(Array(7).fill(dead.event_id));
    // Only a dead letter can be redriven.
    const again = await client.act("/dashboard/webhook", `/dashboard/webhook/deliveries/${dead.id}/redrive`);
    expect(again.status).toBe(409);
  }, 180_000);
});

describe("limits and routing", () => {
  test("an oversized form is refused; unknown dashboard paths are the 404 page; the dashboard is not in /openapi.json", async () => {
    const client = await signedIn(ownerEmail);
    const big = await client.act("/dashboard/sendlists", "/dashboard/sendlists", { kind: "block", pattern: "x".repeat(20_000) });
    expect(big.status).toBe(413);
    const csrf = csrfOf((await client.get("/dashboard/sendlists")).text);
    const long = await client.post("/dashboard/sendlists", { csrf, kind: "block", pattern: `${"x".repeat(400)}.example` });
    expect(long.status).toBe(400);
    expect((await client.get("/dashboard/nope")).status).toBe(404);
    const doc = await (await fetch(`${base}/openapi.json`)).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/dashboard"))).toEqual([]);
    const css = await fetch(`${base}/dashboard/assets/style.css`);
    expect(css.headers.get("content-type")).toContain("text/css");
  });
});
