// Who is calling: the API key's grants, resolved once per request by src/http/auth.ts.

export type Scope = "bootstrap" | "api" | "mcp";

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
