// The principal of an account-wide API key on the free plan, for benchmarks that call the core
// functions directly (as src/request/auth.ts resolves one for a request).
import type { Principal } from "../../src/core/principal.ts";

export function apiPrincipal(keyId: string, accountId: string): Principal {
  return { keyId, accountId, plan: "free", scope: "api", mailboxId: null, canRead: true, canSend: true };
}
