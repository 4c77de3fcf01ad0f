// Accounts: the tenants and who may act for them.
// - accounts.ts: the account (plan, monthly quota); bootstrap.ts: the first start's default
//   account, key and login.
// - keys.ts: API keys, stored as hashes; key-cache.ts: the per-process look-up cache, whose
//   invalidation (LISTEN, key-cache-local.ts) keeps revocation immediate on every process.
// - users.ts, people.ts: dashboard users; passwords.ts: argon2id hashing in a Web Worker
//   (argon2-worker.ts).
// Turning a bearer key into a Principal is src/request/auth.ts; the Principal is ../principal.ts.
// The rate limit per key (a token bucket, 429 when empty) is src/request/rate-limit.ts, checked
// at the edge before any use case runs; the monthly send quota is ../outbound/quota.ts.
// Other modules import this file only.

export type { Plan } from "./accounts.ts";
export { createAccount, monthlyQuotaFor, updateAccount } from "./accounts.ts";
export type { FirstStartSecrets } from "./bootstrap.ts";
export { createDefaultAccountOnFirstStart } from "./bootstrap.ts";
export { cachedPrincipalForSecret, listenThrough, stopKeyCache } from "./key-cache.ts";
export type { KeyRecord } from "./keys.ts";
export { createKey, listKeys, revokeKey } from "./keys.ts";
export { hashPassword, verifyPassword } from "./passwords.ts";
export { changeOwnPassword, listPeople, MIN_PASSWORD_LENGTH, removePerson, setReviewer } from "./people.ts";
export { createUser } from "./users.ts";
