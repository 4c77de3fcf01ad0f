// The one recipient switch for mail arriving at this service, whether from the SMTP listener or
// the local transport: our mailbox (stored), the mailto: half of List-Unsubscribe (applied, the
// message itself not kept), an unknown mailbox of our domain, or a domain that is not ours.
// Each caller decides what the last two mean for it: the listener refused them at RCPT already;
// the local transport bounces the one and keeps the other in its outbox.

import type { Bytes } from "../../byte-blocks.ts";
import type { Mailbox } from "../mailboxes.ts";
import { unsubscribeWithToken } from "../outbound/index.ts";
import type { Services } from "../services.ts";
import { acceptInbound, type InboundEnvelope, lookupRecipient, type RecipientLookup } from "./store.ts";

export type RecipientOutcome = "stored" | "unsubscribed" | "unknown_mailbox" | "not_our_domain";

/** `outcomes` is in the order of the addresses; `stored` holds acceptInbound's message ids. */
export type Receipt = { stored: string[]; outcomes: RecipientOutcome[] };

export async function receiveForRecipients(svc: Services, raw: Bytes, addresses: string[], envelope: InboundEnvelope): Promise<Receipt> {
  const found: RecipientLookup[] = [];
  for (const address of addresses) found.push(await lookupRecipient(svc, address));
  return receiveForLookedUp(svc, raw, found, envelope);
}

/**
 * The same, for recipients already looked up (the SMTP listener looks each one up at RCPT). A
 * mailbox's columns that storing reads (id, account, address) never change, and a mailbox row is
 * never deleted (the message row's foreign key would refuse it, and the sender would retry).
 */
export async function receiveForLookedUp(svc: Services, raw: Bytes, found: RecipientLookup[], envelope: InboundEnvelope): Promise<Receipt> {
  const mailboxes: Mailbox[] = [];
  const outcomes: RecipientOutcome[] = [];
  for (const recipient of found) {
    switch (recipient.kind) {
      case "mailbox":
        mailboxes.push(recipient.mailbox);
        outcomes.push("stored");
        break;
      case "unsubscribe":
        await unsubscribeWithToken(svc.sql, svc.config, recipient.token);
        outcomes.push("unsubscribed");
        break;
      default:
        outcomes.push(recipient.kind);
    }
  }
  // All recipient mailboxes in one transaction, as acceptInbound stores them.
  const stored = mailboxes.length === 0 ? [] : await acceptInbound(svc, raw, mailboxes, envelope);
  return { stored, outcomes };
}
