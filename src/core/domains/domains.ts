// Custom domains: registered by a paid account, verified by looking up the DNS records we asked
// the owner to publish. pending → verified when every record is seen; pending → failed after
// 72 hours; a later successful verify still turns a failed domain verified.
import { generateDkimKeyPair } from "../../mail/dkim-keys.ts";
import { checkDnsRecords, type DnsRecord, isValidDomainName, requiredDnsRecords } from "../../mail/domain-records.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Principal } from "../principal.ts";
import type { Services } from "../services.ts";

export const PENDING_DEADLINE_HOURS = 72;

export type DomainStatus = "pending" | "verified" | "failed";
export type DomainCreated = { id: string; name: string; status: DomainStatus; records: DnsRecord[] };
export type DomainSummary = { id: string; name: string; status: DomainStatus; created_at: string };

function requirePaidPlan(principal: Principal): void {
  if (principal.plan !== "paid") throw errors.paidPlanRequired();
}

export async function createDomain(svc: Services, principal: Principal, rawName: string): Promise<DomainCreated> {
  requirePaidPlan(principal);
  const name = rawName.trim().toLowerCase().replace(/\.$/, "");
  if (!isValidDomainName(name)) throw errors.validation("name must be a valid domain name");
  const shared = svc.config.sharedDomain;
  if (name === shared || name.endsWith(`.${shared}`)) {
    throw errors.validation("name must not be the shared domain or one of its subdomains");
  }

  // Registering the same name twice returns the first registration (same key, same records).
  const [existing] = await svc.sql`
    select id, name, status, records from domains where account_id = ${principal.accountId} and name = ${name}`;
  if (existing) return { id: existing.id, name: existing.name, status: existing.status, records: existing.records };

  const keys = await generateDkimKeyPair();
  const selector = svc.config.dkimSelector;
  const records = requiredDnsRecords(name, { mxHost: svc.config.mxHost, dkimSelector: selector, dkimPublicKey: keys.publicKeyBase64 });
  const id = newId("dom");
  const [row] = await svc.sql`
    insert into domains (id, account_id, name, dkim_selector, dkim_private_key, dkim_public_key, records)
    values (${id}, ${principal.accountId}, ${name}, ${selector}, ${keys.privateKeyPem}, ${keys.publicKeyBase64}, ${svc.sql.json(records as never)})
    on conflict (account_id, name) do nothing
    returning id, name, status, records`;
  if (!row) return createDomain(svc, principal, name); // lost a race with an identical request
  svc.log.info("domain.created", { domain_id: id, account_id: principal.accountId });
  return { id: row.id, name: row.name, status: row.status, records: row.records };
}

export async function listDomains(svc: Services, principal: Principal): Promise<DomainSummary[]> {
  return svc.sql<DomainSummary[]>`
    select id, name, status, created_at from domains where account_id = ${principal.accountId} order by created_at, id`;
}

export async function verifyDomain(svc: Services, principal: Principal, id: string): Promise<{ status: DomainStatus }> {
  requirePaidPlan(principal);
  const [domain] = await svc.sql`
    select id, status, records, created_at from domains where id = ${id} and account_id = ${principal.accountId}`;
  if (!domain) throw errors.notFound("domain");

  const check = await checkDnsRecords(svc.resolve, domain.records as DnsRecord[]);
  const ageHours = (Date.now() - Date.parse(domain.created_at)) / 3_600_000;
  let status: DomainStatus = domain.status;
  if (check.allFound) status = "verified";
  else if (domain.status === "pending" && ageHours >= PENDING_DEADLINE_HOURS) status = "failed";

  try {
    await svc.sql`
      update domains set status = ${status}, last_check = ${svc.sql.json(check as never)}, last_checked_at = now(),
        verified_at = case when ${status} = 'verified' and verified_at is null then now() else verified_at end
      where id = ${id}`;
  } catch (error) {
    // Another account already holds this name verified: ours stays as it was.
    if ((error as { code?: string }).code !== "23505") throw error;
    status = domain.status;
    await svc.sql`update domains set last_check = ${svc.sql.json(check as never)}, last_checked_at = now() where id = ${id}`;
  }
  svc.log.info("domain.verified", { domain_id: id, status, all_found: check.allFound });
  return { status };
}
