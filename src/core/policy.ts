// Whether an account may send to a recipient at all: send lists (403), then suppressions (422).
import type { Db } from "../db.ts";
import { errors } from "./errors.ts";
import { checkSendLists } from "./sendlists.ts";
import { findSuppression } from "./suppressions.ts";

export async function checkRecipientPolicy(db: Db, accountId: string, mailboxId: string, recipient: string): Promise<void> {
  await checkSendLists(db, accountId, mailboxId, recipient);
  if (await findSuppression(db, accountId, recipient)) throw errors.recipientSuppressed();
}
