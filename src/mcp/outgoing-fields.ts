// The send and draft-create arguments: the HTTP routes' own field schemas (same limits, same
// validation), with descriptions written for a model choosing what to pass. `client_id` is the
// routes' clientId(), described per tool.
import type { TSchema } from "elysia";
import { OutgoingFields } from "../request/outgoing-models.ts";

/** A route's field schema (same limits, same validation) with a description written for a model. */
export const described = <S extends TSchema>(schema: S, description: string): S => ({ ...schema, description });

export const outgoingArguments = {
  mailbox_id: described(OutgoingFields.mailbox_id, "id of the mailbox to send from (from list_mailboxes or create_mailbox)"),
  to: described(
    OutgoingFields.to,
    "exactly one recipient address, e.g. `alice@example.com` or `Alice <alice@example.com>`; required " +
      "unless reply_to_message_id is given",
  ),
  subject: described(OutgoingFields.subject, "subject line, no line breaks; when replying, defaults to `Re:` plus the original subject"),
  text: described(OutgoingFields.text, "the plain-text body (up to 500,000 characters)"),
  reply_to_message_id: described(
    OutgoingFields.reply_to_message_id,
    "id of a message in the same mailbox to reply to, in its thread; the recipient and subject default to the original's",
  ),
};
