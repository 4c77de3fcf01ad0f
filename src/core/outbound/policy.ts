// Whether an account may send to a recipient at all: send lists (403), then suppressions (422).
import type { Db } from "../../db.ts";
import { errors } from "../errors.ts";
import type { Tenant } from "../principal.ts";
import { assertSendListsAllow, type SendListEntry } from "./sendlists.ts";
import { normalizeAddress } from "./suppressions.ts";

type Entry = Pick<SendListEntry, "id" | "mailbox_id" | "kind" | "pattern">;

/** What decides a recipient for one mailbox: its send lists and whether the address is suppressed. */
export type RecipientPolicy = { mailboxId: string; recipient: string; entries: Entry[]; suppressed: boolean };

export async function checkRecipientPolicy(db: Db, tenant: Tenant, mailboxId: string, recipient: string): Promise<void> {
  assertRecipientAllowed(await readRecipientPolicy(db, tenant, mailboxId, recipient));
}

/** Reads what assertRecipientAllowed decides on. */
export async function readRecipientPolicy(db: Db, tenant: Tenant, mailboxId: string, recipient: string): Promise<RecipientPolicy> {
  const [row] = await db<
    { policy_entries: Entry[]; policy_suppressed: boolean }[]
  >`select ${policyColumns(db, tenant, mailboxId, recipient)}`;
  return { mailboxId, recipient, entries: row!.policy_entries, suppressed: row!.policy_suppressed };
}

/**
 * The policy as two columns, policy_entries and policy_suppressed, for a select of its own or
 * beside another read (outgoing.ts reads it with the mailbox: a send's round trips are most of
 * its cost). Lists and suppressions in one query; the lists' 403 still wins.
 */
export function policyColumns(db: Db, tenant: Tenant, mailboxId: string, recipient: string) {
  const { accountId } = tenant;
  return db`
    (select coalesce(json_agg(json_build_object('id', id, 'mailbox_id', mailbox_id, 'kind', kind, 'pattern', pattern) order by created_at, id), '[]'::json)
     from send_list_entries where account_id = ${accountId} and (mailbox_id is null or mailbox_id = ${mailboxId})) as policy_entries,
    exists (select 1 from suppressions where account_id = ${accountId} and address = ${normalizeAddress(recipient)}) as policy_suppressed`;
}

export function assertRecipientAllowed(policy: RecipientPolicy): void {
  assertSendListsAllow(policy.entries, policy.recipient);
  if (policy.suppressed) throw errors.recipientSuppressed();
}
