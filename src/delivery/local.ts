// The `local` transport (the embedded default): mail to one of our mailboxes is delivered into it
// through the same path the SMTP listener uses; mail to anyone else is kept in the local outbox,
// like a developer mail catcher (`npm run cli -- outbox list`).
import { newId } from "../core/ids.ts";
import { receiveForRecipients } from "../core/inbound/index.ts";
import type { Services } from "../core/services.ts";
import type { DeliveryTransport } from "../core/transport.ts";

export function makeLocalTransport(svc: Services): DeliveryTransport {
  return {
    name: "local",
    async deliver(envelope, raw, meta) {
      // Storing is the local "final dot": once it may have committed, the outcome can be unknown.
      try {
        await meta.beforeFinalDot?.();
      } catch (error) {
        return { kind: "transient", error: `local delivery not started: ${(error as Error).message}`, stage: "data" };
      }
      try {
        const { stored, outcomes } = await receiveForRecipients(svc, raw, [envelope.to], {
          remoteIp: null,
          helo: null,
          mailFrom: envelope.from,
        });
        if (outcomes[0] === "stored") {
          return { kind: "sent", providerMessageId: `local:${stored[0]}`, response: "delivered to a local mailbox" };
        }
        if (outcomes[0] === "unsubscribed") {
          return { kind: "sent", providerMessageId: `local:unsubscribe`, response: "unsubscribe request accepted" };
        }
        if (outcomes[0] === "unknown_mailbox") {
          return { kind: "permanent", error: "550 5.1.1 No such mailbox", responseCode: 550 };
        }
        const id = newId("out");
        await svc.sql`
          insert into local_outbox (id, message_id, mail_from, rcpt_to, raw)
          values (${id}, ${meta.messageId}, ${envelope.from}, ${envelope.to}, ${raw})`;
        return { kind: "sent", providerMessageId: `outbox:${id}`, response: "kept in the local outbox" };
      } catch (error) {
        // Nothing was stored (each path is one transaction): safe to retry.
        return { kind: "transient", error: `local delivery failed: ${(error as Error).message}` };
      }
    },
  };
}
