// The `local` transport (the embedded default): mail to one of our mailboxes is delivered into it
// through the same path the SMTP listener uses; mail to anyone else is kept in the local outbox,
// like a developer mail catcher (`bun run cli outbox list`).
import { acceptInbound, lookupRecipient } from "../core/inbound.ts";
import { newId } from "../core/ids.ts";
import type { Services } from "../core/services.ts";
import { unsubscribeWithToken } from "../core/unsubscribe.ts";
import type { DeliveryTransport } from "../core/transport.ts";

export function makeLocalTransport(svc: Services): DeliveryTransport {
  return {
    name: "local",
    async deliver(envelope, raw, meta) {
      try {
        const recipient = await lookupRecipient(svc, envelope.to);
        if (recipient.kind === "mailbox") {
          const [id] = await acceptInbound(svc, raw, [recipient.mailbox], { remoteIp: null, helo: null, mailFrom: envelope.from });
          return { kind: "sent", providerMessageId: `local:${id}`, response: "delivered to a local mailbox" };
        }
        if (recipient.kind === "unsubscribe") {
          await unsubscribeWithToken(svc.sql, svc.config, recipient.token);
          return { kind: "sent", providerMessageId: `local:unsubscribe`, response: "unsubscribe request accepted" };
        }
        if (recipient.kind === "unknown_mailbox") {
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
