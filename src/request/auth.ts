// Bearer key → principal, and the one table that says which keys each class of endpoint admits.
// Routes declare their class (`auth: "read"`); nothing else in the HTTP layer checks grants.

import { cachedPrincipalForSecret } from "../core/accounts/index.ts";
import { errors } from "../core/errors.ts";
import type { Principal, Scope } from "../core/principal.ts";
import type { Sql } from "../db.ts";

export type EndpointClass = "mailboxCreate" | "accountPlane" | "accountRead" | "mailboxList" | "read" | "write";

type ClassRule = {
  scopes: readonly Scope[];
  /** "reject": a mailbox-bound key is refused; "own": it may act on its own mailbox only */
  boundKeys: "reject" | "own";
  capability: "read" | "send" | null;
};

export const endpointClasses: Record<EndpointClass, ClassRule> = {
  // POST /api/v1/mailboxes: the only endpoint a bootstrap key may call
  mailboxCreate: { scopes: ["bootstrap", "api", "mcp"], boundKeys: "reject", capability: null },
  // POST /domains and verify
  accountPlane: { scopes: ["api", "mcp"], boundKeys: "reject", capability: null },
  // GET /domains: "can_read governs GET", on the account plane too
  accountRead: { scopes: ["api", "mcp"], boundKeys: "reject", capability: "read" },
  // GET /api/v1/mailboxes: a bound key sees its own mailbox
  mailboxList: { scopes: ["api", "mcp"], boundKeys: "own", capability: "read" },
  // GET messages and drafts
  read: { scopes: ["api", "mcp"], boundKeys: "own", capability: "read" },
  // send and draft writes
  write: { scopes: ["api", "mcp"], boundKeys: "own", capability: "send" },
};

// The scheme name is case-insensitive (RFC 7235); the token is one token68.
const BEARER = /^Bearer ([A-Za-z0-9_\-.~+/]+=*)$/i;
const MAX_SECRET_LENGTH = 512;

export async function authenticate(sql: Sql, header: string | null): Promise<Principal> {
  const match = header ? BEARER.exec(header.trim()) : null;
  if (!match || match[1]!.length > MAX_SECRET_LENGTH) throw errors.missingBearer();
  const principal = await cachedPrincipalForSecret(sql, match[1]!);
  if (!principal) throw errors.invalidApiKey();
  return principal;
}

export function authorize(principal: Principal, endpointClass: EndpointClass): void {
  const rule = endpointClasses[endpointClass];
  if (!rule.scopes.includes(principal.scope)) throw errors.scopeNotPermitted(principal.scope);
  if (rule.boundKeys === "reject" && principal.mailboxId !== null) throw errors.keyScope("singleMailbox");
  if (rule.capability === "read" && !principal.canRead) throw errors.keyScope("cannotRead");
  if (rule.capability === "send" && !principal.canSend) throw errors.keyScope("cannotSend");
}

/**
 * Authenticates and authorizes a request once, however many lifecycle hooks ask: the parse hook
 * asks first (so a bad key is 401 before a malformed body is 400), the handler's resolve last.
 */
export function makeRequestAuthorizer(sql: Sql, limit: (principal: Principal, request: Request) => unknown | Promise<unknown> = () => {}) {
  const decided = new WeakMap<Request, Promise<Principal>>();
  return (request: Request, endpointClass: EndpointClass): Promise<Principal> => {
    let decision = decided.get(request);
    if (!decision) {
      decision = authenticate(sql, request.headers.get("authorization")).then(async (principal) => {
        await limit(principal, request);
        authorize(principal, endpointClass);
        return principal;
      });
      decided.set(request, decision);
    }
    return decision;
  };
}
