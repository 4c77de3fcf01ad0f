// POST/GET /api/v1/domains and verify on the happy path, against a real DNS server on loopback: the
// records a customer must publish, and pending → verified / failed (72 h) → verified as docs/decisions.md decides.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";
import { type DnsServer, startSilentDnsServer } from "../support/dns-server.ts";
import {
  type DnsRecord,
  domainRequests,
  MX_HOST,
  publishRecords,
  SELECTOR,
  startDomainsWorld,
  stopDomainsWorld,
} from "../support/domains-world.ts";

const RSA = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };

let dns: DnsServer;
let ctx: TestContext;
let free: Fixture;
let paid: Fixture;

beforeAll(async () => {
  ({ dns, ctx, free, paid } = await startDomainsWorld());
});

afterAll(() => stopDomainsWorld({ dns, ctx }));

const { register, verify } = domainRequests(() => ctx);

const publish = (records: DnsRecord[], only?: string[]) => publishRecords(dns, records, only);

function unpublish(name: string): void {
  for (const key of Object.keys(dns.zone)) if (key === name || key.endsWith(`.${name}`)) delete dns.zone[key];
}

describe("plan", () => {
  test("listing is allowed on the free plan (and empty)", async () => {
    const response = await ctx.request("GET", "/api/v1/domains", { key: free.key });
    expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: '{"domains":[]}' });
  });
});

describe("names", () => {
  test("a name is lower-cased and loses its trailing dot", async () => {
    const response = await register(paid.key, { name: "Mixed-Case.Example." });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe("mixed-case.example");
  });
});

describe("DomainCreated", () => {
  let created: { id: string; name: string; status: string; records: DnsRecord[] };
  beforeAll(async () => {
    const response = await register(paid.key, { name: "shape.example" });
    expect(response.status).toBe(200);
    created = response.body;
  });

  test("is exactly {id, name, status, records}, status pending", () => {
    expect(Object.keys(created).sort()).toEqual(["id", "name", "records", "status"]);
    expect(created.id).toMatch(/^dom_[0-9a-z]{24}$/);
    expect(created.name).toBe("shape.example");
    expect(created.status).toBe("pending");
  });

  test("has the four records: MX to our host, SPF, DKIM and DMARC", () => {
    expect(created.records).toEqual([
      { type: "MX", name: "shape.example", value: MX_HOST, priority: 10, purpose: "inbound" },
      { type: "TXT", name: "shape.example", value: `v=spf1 a:${MX_HOST} ~all`, purpose: "spf" },
      {
        type: "TXT",
        name: `${SELECTOR}._domainkey.shape.example`,
        value: expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+={0,2}$/),
        purpose: "dkim",
      },
      {
        type: "TXT",
        name: "_dmarc.shape.example",
        value: expect.stringMatching(/^v=DMARC1; p=(none|quarantine|reject)(;|$)/),
        purpose: "dmarc",
      },
    ]);
  });

  test("the DKIM record holds a real RSA 2048 public key whose private half we kept for signing", async () => {
    const p = created.records.find((r) => r.purpose === "dkim")!.value.split("p=")[1]!;
    const publicKey = await crypto.subtle.importKey("spki", Buffer.from(p, "base64"), RSA, true, ["verify"]);
    expect((publicKey.algorithm as RsaHashedKeyAlgorithm).modulusLength).toBe(2048);
    const [row] = await ctx.sql`select dkim_private_key, dkim_public_key, dkim_selector from domains where id = ${created.id}`;
    expect(row!.dkim_public_key).toBe(p);
    expect(row!.dkim_selector).toBe(SELECTOR);
    const der = Buffer.from(row!.dkim_private_key.replace(/-----[^-]+-----|\s/g, ""), "base64");
    const privateKey = await crypto.subtle.importKey("pkcs8", der, RSA, false, ["sign"]);
    const data = new TextEncoder().encode("a message from shape.example");
    expect(await crypto.subtle.verify(RSA, publicKey, await crypto.subtle.sign(RSA, privateKey, data), data)).toBe(true);
  });

  test("each domain gets its own DKIM key", async () => {
    const other = (await register(paid.key, { name: "other-key.example" })).body;
    const dkim = (d: typeof created) => d.records.find((r) => r.purpose === "dkim")!.value;
    expect(dkim(other)).not.toBe(dkim(created));
  });

  test("registering the same name again returns the same id and records, and stores nothing new", async () => {
    const again = await register(paid.key, { name: "SHAPE.example" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created);
    const [row] = await ctx.sql`select count(*)::int as n from domains where name = 'shape.example'`;
    expect(row!.n).toBe(1);
  });

  test("concurrent registrations of one new name all return the same registration", async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => register(paid.key, { name: "race.example" })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(results.map((r) => JSON.stringify(r.body.records))).size).toBe(1);
  });
});

describe("GET /api/v1/domains", () => {
  test("is {domains: [{id, name, status, created_at}]} in registration order, the caller's only", async () => {
    const owner = await makeAccount(ctx, { plan: "paid" });
    const a = (await register(owner.key, { name: "list-a.example" })).body;
    const b = (await register(owner.key, { name: "list-b.example" })).body;
    const response = await ctx.request("GET", "/api/v1/domains", { key: owner.key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      domains: [
        { id: a.id, name: "list-a.example", status: "pending", created_at: expect.any(String) },
        { id: b.id, name: "list-b.example", status: "pending", created_at: expect.any(String) },
      ],
    });
    for (const domain of response.body.domains) expect(Number.isNaN(Date.parse(domain.created_at))).toBe(false);
  });
});

describe("verify", () => {
  async function fresh(name: string) {
    const response = await register(paid.key, { name });
    expect(response.status).toBe(200);
    return response.body as { id: string; name: string; records: DnsRecord[] };
  }
  const statusInList = async (id: string) =>
    (await ctx.request("GET", "/api/v1/domains", { key: paid.key })).body.domains.find((d: { id: string }) => d.id === id)?.status;

  test("pending while nothing is published, and the check is recorded", async () => {
    const domain = await fresh("nothing.example");
    const response = await verify(paid.key, domain.id);
    expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: '{"status":"pending"}' });
    const [row] = await ctx.sql`select status, last_check, last_checked_at from domains where id = ${domain.id}`;
    expect(row!.status).toBe("pending");
    expect(row!.last_checked_at).not.toBeNull();
    expect(row!.last_check.allFound).toBe(false);
    expect(row!.last_check.checks.map((c: { found: boolean }) => c.found)).toEqual([false, false, false, false]);
  });

  test("the look-ups went to the configured DNS server", async () => {
    const domain = await fresh("asked.example");
    const before = dns.queries.length;
    await verify(paid.key, domain.id);
    const asked = dns.queries.slice(before).map((q) => `${q.type} ${q.name.toLowerCase()}`);
    expect(asked).toContain("MX asked.example");
    expect(asked).toContain("TXT asked.example");
    expect(asked).toContain(`TXT ${SELECTOR}._domainkey.asked.example`);
    expect(asked).toContain("TXT _dmarc.asked.example");
  });

  for (const missing of ["inbound", "spf", "dkim", "dmarc"]) {
    test(`pending while the ${missing} record is missing`, async () => {
      const domain = await fresh(`no-${missing}.example`);
      publish(
        domain.records,
        ["inbound", "spf", "dkim", "dmarc"].filter((p) => p !== missing),
      );
      expect((await verify(paid.key, domain.id)).body).toEqual({ status: "pending" });
    });
  }

  test("verified once every record is published, and the list shows it", async () => {
    const domain = await fresh("complete.example");
    publish(domain.records);
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "verified" });
    expect(await statusInList(domain.id)).toBe("verified");
    const [row] = await ctx.sql`select verified_at from domains where id = ${domain.id}`;
    expect(row!.verified_at).not.toBeNull();
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "verified" });
  });

  test("a DKIM record with the wrong key does not verify", async () => {
    const domain = await fresh("wrong-key.example");
    publish(domain.records, ["inbound", "spf", "dmarc"]);
    dns.zone[`${SELECTOR}._domainkey.wrong-key.example`] = {
      TXT: [["v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong"]],
    };
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "pending" });
  });

  test("still pending just under 72 hours", async () => {
    const domain = await fresh("seventy-one.example");
    await ctx.sql`update domains set created_at = now() - interval '71 hours' where id = ${domain.id}`;
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "pending" });
  });

  test("failed after 72 hours pending; stays failed without records; verified when they appear", async () => {
    const domain = await fresh("late.example");
    await ctx.sql`update domains set created_at = now() - interval '73 hours' where id = ${domain.id}`;
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "failed" });
    expect(await statusInList(domain.id)).toBe("failed");
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "failed" });
    publish(domain.records);
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "verified" });
    expect(await statusInList(domain.id)).toBe("verified");
  });

  test("a verified domain stays verified when its records later disappear", async () => {
    // docs/decisions.md: pending → verified and pending → failed; verified is not revoked by verify.
    const domain = await fresh("sticky.example");
    publish(domain.records);
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "verified" });
    unpublish("sticky.example");
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "verified" });
  });

  test("a verified domain makes mailbox creation with domain_id work", async () => {
    const domain = await fresh("mailboxes.example");
    const early = await ctx.request("POST", "/api/v1/mailboxes", { key: paid.key, body: { slug: "bot", domain_id: domain.id } });
    expect({ status: early.status, body: early.body }).toEqual({ status: 400, body: { error: "domain is not verified" } });
    publish(domain.records);
    expect((await verify(paid.key, domain.id)).body).toEqual({ status: "verified" });
    const response = await ctx.request("POST", "/api/v1/mailboxes", { key: paid.key, body: { slug: "bot", domain_id: domain.id } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.stringMatching(/^mbx_/), address: "bot@mailboxes.example" });
  });

  test("a DNS server that never answers leaves the domain pending, within the configured timeout", async () => {
    const silent = await startSilentDnsServer();
    const quiet = await makeTestContext({ DNS_SERVERS: silent.address, DNS_TIMEOUT_MS: "200", MX_HOST, DKIM_SELECTOR: SELECTOR });
    try {
      const owner = await makeAccount(quiet, { plan: "paid" });
      const domain = (await quiet.request("POST", "/api/v1/domains", { key: owner.key, body: { name: "silent.example" } })).body;
      const started = performance.now();
      const response = await quiet.request("POST", `/api/v1/domains/${domain.id}/verify`, { key: owner.key });
      expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { status: "pending" } });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(silent.received()).toBeGreaterThan(0);
    } finally {
      await quiet.close();
      await silent.close();
    }
  });
});
