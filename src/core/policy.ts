// Whether an account may send to a recipient at all: send lists (403), then suppressions (422).
import type { Db } from "../db.ts";
import { errors } from "./errors.ts";
import { checkSendLists } from "./sendlists.ts";
import { findSuppression } from "./suppressions.ts";

export async function checkRecipientPolicy(db: Db, accountId: string, mailboxId: string, recipient: string): Promise<void> {
  // Both looked up at once (one round trip of latency, not two); the lists' 403 still wins.
  const [lists, suppression] = await Promise.allSettled([
    checkSendLists(db, accountId, mailboxId, recipient),
    findSuppression(db, accountId, recipient),
  ]);
  if (lists.status === "rejected") throw lists.reason;
  if (suppression.status === "rejected") throw suppression.reason;
  if (suppression.value) throw errors.recipientSuppressed();
}
