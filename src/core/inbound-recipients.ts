// The one recipient switch for mail arriving at this service, whether from the SMTP listener or
// the local transport: our mailbox (stored), the mailto: half of List-Unsubscribe (applied, the
// message itself not kept), an unknown mailbox of our domain, or a domain that is not ours.
// Each caller decides what the last two mean for it: the listener refused them at RCPT already;
// the local transport bounces the one and keeps the other in its outbox.
import { acceptInbound, lookupRecipient, type InboundEnvelope } from "./inbound.ts";
import type { Mailbox } from "./mailboxes.ts";
import type { Services } from "./services.ts";
import { unsubscribeWithToken } from "./unsubscribe.ts";

export type RecipientOutcome = "stored" | "unsubscribed" | "unknown_mailbox" | "not_our_domain";

/** `outcomes` is in the order of the addresses; `stored` holds acceptInbound's message ids. */
export type Receipt = { stored: string[]; outcomes: RecipientOutcome[] };

export async function receiveForRecipients(
  svc: Services,
  raw: Uint8Array,
  addresses: string[],
  envelope: InboundEnvelope,
): Promise<Receipt> {
  const mailboxes: Mailbox[] = [];
  const outcomes: RecipientOutcome[] = [];
  for (const address of addresses) {
    const found = await lookupRecipient(svc, address);
    switch (found.kind) {
      case "mailbox":
        mailboxes.push(found.mailbox);
        outcomes.push("stored");
        break;
      case "unsubscribe":
        await unsubscribeWithToken(svc.sql, svc.config, found.token);
        outcomes.push("unsubscribed");
        break;
      default:
        outcomes.push(found.kind);
    }
  }
  // All recipient mailboxes in one transaction, as acceptInbound stores them.
  const stored = mailboxes.length === 0 ? [] : await acceptInbound(svc, raw, mailboxes, envelope);
  return { stored, outcomes };
}
