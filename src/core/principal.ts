// Who is calling: the API key's grants, resolved once per request by src/request/auth.ts.
import { errors } from "./errors.ts";

export type Scope = "bootstrap" | "api" | "mcp";

/**
 * The one account-scoped argument of every core function that reads or writes a tenant's rows:
 * its SQL is scoped by `accountId`, so another account's id answers as a missing one. A Principal
 * is a Tenant, and so is a dashboard session.
 */
export type Tenant = { readonly accountId: string };

export type Principal = {
  keyId: string;
  accountId: string;
  plan: "free" | "paid";
  scope: Scope;
  /** null for an account-wide key; otherwise the only mailbox this key may act on */
  mailboxId: string | null;
  canRead: boolean;
  canSend: boolean;
};

/** A body or query `mailbox_id` a bound key may not act on: 403 key_scope. */
export function assertMailboxAllowed(principal: Principal, mailboxId: string): void {
  if (principal.mailboxId !== null && principal.mailboxId !== mailboxId) throw errors.keyScope("differentMailbox");
}
