// The world the domain route tests share: a real DNS server on loopback in which our MX host has
// an address (SPF is judged for it, as a receiver of our mail judges it), a test context that
// resolves through it, and a free and a paid account.
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "./context.ts";
import { type DnsServer, startDnsServer } from "./dns-server.ts";

export const MX_HOST = "mx.mail-service.test";
export const SELECTOR = "sel7";

export type DnsRecord = { type: "MX" | "TXT"; name: string; value: string; priority?: number; purpose: string };
export type DomainsWorld = { dns: DnsServer; ctx: TestContext; free: Fixture; paid: Fixture };

export async function startDomainsWorld(): Promise<DomainsWorld> {
  const dns = await startDnsServer({ [MX_HOST]: { A: ["192.0.2.25"] } });
  const ctx = await makeTestContext({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: "1000", MX_HOST, DKIM_SELECTOR: SELECTOR });
  return { dns, ctx, free: await makeAccount(ctx), paid: await makeAccount(ctx, { plan: "paid" }) };
}

export async function stopDomainsWorld(world: Partial<DomainsWorld>): Promise<void> {
  await world.ctx?.close();
  await world.dns?.close();
}

/** POST /domains and POST /domains/{id}/verify with a key. */
export function domainRequests(ctx: () => TestContext) {
  return {
    register: (key: string, body: unknown) => ctx().request("POST", "/api/v1/domains", { key, body }),
    verify: (key: string, id: string) => ctx().request("POST", `/api/v1/domains/${id}/verify`, { key }),
  };
}

/** Publishes records exactly as the API handed them out, the way a DNS host would store them. */
export function publishRecords(dns: DnsServer, records: DnsRecord[], only?: string[]): void {
  for (const record of records) {
    if (only && !only.includes(record.purpose)) continue;
    const entry = (dns.zone[record.name] ??= {});
    if (record.type === "MX") (entry.MX ??= []).push({ exchange: record.value, priority: record.priority ?? 10 });
    else (entry.TXT ??= []).push([record.value]);
  }
}
