// Send allow/block lists at account and mailbox scope, managed by humans. An entry matches an
// exact address or a whole domain. Block entries win; where a scope has allow entries, a
// recipient must match one of them.
import type { Db } from "../../db.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Tenant } from "../principal.ts";

export type SendListEntry = {
  id: string;
  account_id: string;
  mailbox_id: string | null;
  kind: "allow" | "block";
  pattern: string;
  created_at: string;
};

const DOMAIN = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;
const ADDRESS = /^[^\s@]{1,64}@[a-z0-9.-]{1,253}$/;

function normalizePattern(pattern: string): string {
  const value = pattern.trim().toLowerCase().replace(/^@/, "");
  if (!DOMAIN.test(value) && !ADDRESS.test(value)) throw errors.validation("pattern must be an email address or a domain name");
  return value;
}

export async function addSendListEntry(
  db: Db,
  input: { accountId: string; mailboxId?: string | null; kind: "allow" | "block"; pattern: string },
): Promise<SendListEntry> {
  const pattern = normalizePattern(input.pattern);
  if (input.mailboxId) {
    const [mailbox] = await db`select 1 from mailboxes where id = ${input.mailboxId} and account_id = ${input.accountId}`;
    if (!mailbox) throw errors.notFound("mailbox");
  }
  const [entry] = await db<SendListEntry[]>`
    insert into send_list_entries (id, account_id, mailbox_id, kind, pattern)
    values (${newId("sle")}, ${input.accountId}, ${input.mailboxId ?? null}, ${input.kind}, ${pattern})
    on conflict (account_id, mailbox_id, kind, pattern) do update set pattern = excluded.pattern
    returning *`;
  return entry!;
}

/** False when the account has no such entry (another account's entry included). */
export async function removeSendListEntry(db: Db, tenant: Tenant, id: string): Promise<boolean> {
  const { accountId } = tenant;
  return (await db`delete from send_list_entries where id = ${id} and account_id = ${accountId} returning id`).length > 0;
}

export async function listSendListEntries(db: Db, tenant: Tenant): Promise<SendListEntry[]> {
  const { accountId } = tenant;
  return db<
    SendListEntry[]
  >`select * from send_list_entries where account_id = ${accountId} order by mailbox_id nulls first, kind, pattern`;
}

/**
 * The lists' verdict on `entries`: the account's entries and the mailbox's, oldest first (policy.ts
 * reads them with the suppression check). Throws 403 send_blocked_by_list when they refuse this recipient.
 */
export function assertSendListsAllow(entries: Pick<SendListEntry, "id" | "mailbox_id" | "kind" | "pattern">[], recipient: string): void {
  const address = recipient.toLowerCase();
  const domain = address.slice(address.lastIndexOf("@") + 1);
  const matches = (entry: (typeof entries)[number]) => entry.pattern === address || entry.pattern === domain;
  for (const scope of ["account", "mailbox"] as const) {
    const inScope = entries.filter((entry) => (scope === "account") === (entry.mailbox_id === null));
    const block = inScope.find((entry) => entry.kind === "block" && matches(entry));
    if (block) throw errors.sendBlocked("block_match", scope, block.id);
  }
  for (const scope of ["account", "mailbox"] as const) {
    const allows = entries.filter((entry) => entry.kind === "allow" && (scope === "account") === (entry.mailbox_id === null));
    if (allows.length > 0 && !allows.some(matches)) throw errors.sendBlocked("no_allow_match", scope);
  }
}
