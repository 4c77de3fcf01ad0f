// RCPT looks every recipient up, and a busy mailbox is named by message after message: found
// mailboxes of the shared domain are remembered for a few seconds, so that most RCPTs cost no
// round trip. Only what was found is kept: an unknown address (which anyone can make up) is looked
// up every time, so a mailbox created a moment ago receives at once. What storing reads from a
// mailbox (id, account, address) never changes and a mailbox row is never deleted, so a
// remembered one cannot be wrong. A custom domain's mailboxes are not remembered: the domain can
// stop being verified, and the next transaction must then be refused.
import { lookupRecipient, type RecipientLookup } from "../src/core/inbound/index.ts";
import type { Services } from "../src/core/services.ts";

const LIFETIME_MS = 5_000;
/** Bounded: past it the oldest entries go (Map keeps insertion order). */
const MAX_ENTRIES = 10_000;

export function makeRecipientCache(svc: Services, now: () => number = Date.now) {
  const found = new Map<string, { lookup: RecipientLookup; until: number }>();
  return async function lookup(address: string): Promise<RecipientLookup> {
    const key = address.toLowerCase();
    const entry = found.get(key);
    if (entry && entry.until > now()) return entry.lookup;
    const result = await lookupRecipient(svc, address);
    found.delete(key);
    if (result.kind === "mailbox" && key.endsWith(`@${svc.config.sharedDomain}`)) {
      found.set(key, { lookup: result, until: now() + LIFETIME_MS });
      if (found.size > MAX_ENTRIES) found.delete(found.keys().next().value!);
    }
    return result;
  };
}
