// Domains between accounts: a name verified by one account cannot be taken by another, and another
// account's domain id answers as a missing one does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, makeAccount, type TestContext } from "../support/context.ts";
import type { DnsServer } from "../support/dns-server.ts";
import { type DnsRecord, domainRequests, publishRecords, startDomainsWorld, stopDomainsWorld } from "../support/domains-world.ts";

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

describe("verify", () => {
  async function fresh(name: string) {
    const response = await register(paid.key, { name });
    expect(response.status).toBe(200);
    return response.body as { id: string; name: string; records: DnsRecord[] };
  }

  test("only one account can hold a name verified", async () => {
    const rival = await makeAccount(ctx, { plan: "paid" });
    const ours = await fresh("contested.example");
    const theirs = (await register(rival.key, { name: "contested.example" })).body as { id: string; records: DnsRecord[] };
    expect(theirs.id).not.toBe(ours.id);
    // Both DKIM keys published under the one selector: each account's check passes on its own.
    publish(ours.records);
    publish(theirs.records, ["dkim"]);
    expect((await verify(paid.key, ours.id)).body).toEqual({ status: "verified" });
    const response = await verify(rival.key, theirs.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "pending" });
    const rows = await ctx.sql`select account_id, status from domains where name = 'contested.example' order by status`;
    expect(rows.map((r) => r.status)).toEqual(["pending", "verified"]);
  });

  test("another account's domain id is the same 404 as a missing id, and changes nothing", async () => {
    const theirs = await fresh("theirs.example");
    publish(theirs.records);
    const stranger = await makeAccount(ctx, { plan: "paid" });
    const foreign = await verify(stranger.key, theirs.id);
    const missing = await verify(stranger.key, "dom_000000000000000000000000");
    expect({ status: foreign.status, text: foreign.text }).toEqual({ status: 404, text: '{"error":"not found"}' });
    expect(foreign.text).toBe(missing.text);
    const [row] = await ctx.sql`select status from domains where id = ${theirs.id}`;
    expect(row!.status).toBe("pending");
  });

  test("a free account's list does not show another account's domains", async () => {
    await fresh("listed-elsewhere.example");
    const response = await ctx.request("GET", "/api/v1/domains", { key: free.key });
    expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: '{"domains":[]}' });
  });
});
