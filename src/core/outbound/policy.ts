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

/** Reads what assertRecipientAllowed decides on; a read, so it may be made before the checks that come first. */
export async function readRecipientPolicy(db: Db, tenant: Tenant, mailboxId: string, recipient: string): Promise<RecipientPolicy> {
  const { accountId } = tenant;
  // Both in one query (a send's round trips are most of its cost); the lists' 403 still wins.
  const [row] = await db<{ entries: Entry[]; suppressed: boolean }[]>`
    select
      (select coalesce(json_agg(json_build_object('id', id, 'mailbox_id', mailbox_id, 'kind', kind, 'pattern', pattern) order by created_at, id), '[]'::json)
       from send_list_entries where account_id = ${accountId} and (mailbox_id is null or mailbox_id = ${mailboxId})) as entries,
      exists (select 1 from suppressions where account_id = ${accountId} and address = ${normalizeAddress(recipient)}) as suppressed`;
  return { mailboxId, recipient, entries: row!.entries, suppressed: row!.suppressed };
}

export function assertRecipientAllowed(policy: RecipientPolicy): void {
  assertSendListsAllow(policy.entries, policy.recipient);
  if (policy.suppressed) throw errors.recipientSuppressed();
}
