// Mailboxes: created by keys on the shared domain or a verified custom domain; their approval and
// spam settings are changed by humans only.
import type { Db } from "../db.ts";
import { hex, randomBytes } from "../secrets.ts";
import { errors } from "./errors.ts";
import { newId } from "./ids.ts";
import type { Principal, Tenant } from "./principal.ts";
import type { Services } from "./services.ts";

export const SLUG_PATTERN = "^[a-z0-9][a-z0-9-]{0,40}$";
const SLUG = new RegExp(SLUG_PATTERN);

export type MailboxInput = {
  slug?: string;
  display_name?: string;
  extraction_schema_id?: string;
  domain_id?: string;
};

export const MAX_REVIEW_WINDOW_HOURS = 8760;

/** `paused`: a human paused the mailbox; sends and draft submissions are then held for a human (202 pending_approval). */
export type MailboxSummary = { id: string; address: string; display_name: string | null; created_at: string; paused: boolean };

export type Mailbox = MailboxSummary & {
  account_id: string;
  domain_id: string | null;
  local_part: string;
  domain_name: string;
  extraction_schema_id: string | null;
  require_approval: boolean;
  deliver_spam: boolean;
  /** hours a draft waits for a human before it is rejected as expired (default 72) */
  review_window_hours: number;
  /** set while a human has paused the mailbox: its sends and draft submissions are held for a human */
  paused_at: string | null;
  paused_by: string | null;
};

export async function createMailbox(svc: Services, principal: Principal, input: MailboxInput): Promise<{ id: string; address: string }> {
  const { sql, config } = svc;
  const slug = input.slug ?? hex(randomBytes(6));
  if (!SLUG.test(slug)) {
    throw errors.validation(`slug must match ${SLUG_PATTERN}`);
  }

  let address = `agent-${slug}@${config.sharedDomain}`;
  let domainName = config.sharedDomain;
  let localPart = `agent-${slug}`;
  if (input.domain_id !== undefined) {
    if (principal.plan !== "paid") throw errors.paidPlanRequired();
    const [domain] = await sql`select name, status from domains where id = ${input.domain_id} and account_id = ${principal.accountId}`;
    if (!domain) throw errors.notFound("domain");
    if (domain.status !== "verified") throw errors.validation("domain is not verified");
    domainName = domain.name;
    localPart = slug;
    address = `${slug}@${domain.name}`;
  }

  if (input.extraction_schema_id !== undefined) {
    const [schema] =
      await sql`select 1 from extraction_schemas where id = ${input.extraction_schema_id} and account_id = ${principal.accountId}`;
    if (!schema) throw errors.notFound("extraction schema");
  }

  const id = newId("mbx");
  const rows = await sql`
    insert into mailboxes (id, account_id, domain_id, local_part, domain_name, address, display_name, extraction_schema_id)
    values (${id}, ${principal.accountId}, ${input.domain_id ?? null}, ${localPart}, ${domainName}, ${address},
            ${input.display_name ?? null}, ${input.extraction_schema_id ?? null})
    on conflict (address) do nothing
    returning id`;
  // 400, not 409: every 409 of the contract carries a code, and this is a validation failure.
  if (rows.length === 0) throw errors.validation("mailbox address already in use");
  svc.log.info("mailbox.created", { mailbox_id: id, account_id: principal.accountId });
  return { id, address };
}

export async function listMailboxes(sql: Db, principal: Principal, limit: number): Promise<MailboxSummary[]> {
  return sql<MailboxSummary[]>`
    select id, address, display_name, created_at, paused_at is not null as paused from mailboxes
    where account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or id = ${principal.mailboxId})
    order by created_at desc, id desc
    limit ${limit}`;
}

/** A mailbox of the principal's account, or null; a bound key sees only its own mailbox. */
export async function findMailbox(sql: Db, tenant: Tenant, mailboxId: string): Promise<Mailbox | null> {
  const { accountId } = tenant;
  const [mailbox] = await sql<Mailbox[]>`select * from mailboxes where id = ${mailboxId} and account_id = ${accountId}`;
  return mailbox ?? null;
}

/** Human-only settings (CLI and dashboard); another account's mailbox is not found. */
export async function updateMailboxSettings(
  sql: Db,
  tenant: Tenant,
  mailboxId: string,
  settings: { requireApproval?: boolean; deliverSpam?: boolean; reviewWindowHours?: number; paused?: { by: string } | false },
): Promise<Mailbox> {
  const { accountId } = tenant;
  const hours = settings.reviewWindowHours;
  if (hours !== undefined && !(Number.isInteger(hours) && hours >= 1 && hours <= MAX_REVIEW_WINDOW_HOURS)) {
    throw errors.validation(`review window must be a whole number of hours from 1 to ${MAX_REVIEW_WINDOW_HOURS}`);
  }
  const pause = settings.paused === undefined ? null : settings.paused === false ? "off" : "on";
  const pausedBy = settings.paused ? settings.paused.by : null;
  // Pausing an already paused mailbox keeps who paused it first, and when.
  const [mailbox] = await sql<Mailbox[]>`
    update mailboxes set
      require_approval = coalesce(${settings.requireApproval ?? null}::boolean, require_approval),
      deliver_spam = coalesce(${settings.deliverSpam ?? null}::boolean, deliver_spam),
      review_window_hours = coalesce(${hours ?? null}::int, review_window_hours),
      paused_at = case ${pause}::text when 'on' then coalesce(paused_at, now()) when 'off' then null else paused_at end,
      paused_by = case ${pause}::text when 'on' then coalesce(paused_by, ${pausedBy}) when 'off' then null else paused_by end
    where id = ${mailboxId} and account_id = ${accountId}
    returning *`;
  if (!mailbox) throw errors.notFound("mailbox");
  return mailbox;
}
