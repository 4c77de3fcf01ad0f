// Domains: an account's custom sending domains and the DKIM keys mail is signed with.
// - domains.ts: registering a domain, the DNS records asked of its owner, verification.
// - dkim.ts: which key signs a message (the domain's own, or the shared domain's).
// Other modules import this file only.
export { sharedDomainKey, signingKeyFor } from "./dkim.ts";
export type { DomainStatus } from "./domains.ts";
export { createDomain, listDomains, verifyDomain } from "./domains.ts";
