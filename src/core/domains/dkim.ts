// The DKIM key a message is signed with: a custom domain's own key, or the shared domain's key,
// generated once and kept in the database (publish it with `npm run cli -- dkim show`).
import type { Config } from "../../config.ts";
import type { Db } from "../../db.ts";
import { generateDkimKeyPair } from "../../mail/dkim-keys.ts";
import type { DkimKey } from "../../mail/dkim-sign.ts";
import type { Mailbox } from "../mailboxes.ts";

/** The key a message is signed with: what the signer (src/mail/dkim-sign.ts) takes. */
export type SigningKey = DkimKey;

type SharedKey = { selector: string; privateKey: string; publicKey: string };

// The shared domain's key, kept per service (one config, one database) once read: it is generated
// once and nothing replaces it (there is no rotation command), and reading it cost a round trip on
// every send. A key replaced by hand in the table takes effect when the processes restart.
const sharedKeys = new WeakMap<Config, SharedKey>();

export async function sharedDomainKey(db: Db, config: Config): Promise<SharedKey> {
  const known = sharedKeys.get(config);
  if (known) return known;
  const [existing] = await db`select selector, private_key, public_key from service_dkim_keys where domain = ${config.sharedDomain}`;
  if (existing) {
    const key = { selector: existing.selector, privateKey: existing.private_key, publicKey: existing.public_key };
    // Read inside a transaction, the row may be this transaction's own insert, not yet committed.
    if (!("savepoint" in db)) sharedKeys.set(config, key);
    return key;
  }
  const keys = await generateDkimKeyPair();
  await db`
    insert into service_dkim_keys (domain, selector, private_key, public_key)
    values (${config.sharedDomain}, ${config.dkimSelector}, ${keys.privateKeyPem}, ${keys.publicKeyBase64})
    on conflict do nothing`;
  return sharedDomainKey(db, config);
}

export async function signingKeyFor(db: Db, config: Config, mailbox: Mailbox): Promise<SigningKey> {
  if (mailbox.domain_id) {
    const [domain] = await db`select name, dkim_selector, dkim_private_key from domains where id = ${mailbox.domain_id}`;
    if (domain) return { domainName: domain.name, keySelector: domain.dkim_selector, privateKey: domain.dkim_private_key };
  }
  const shared = await sharedDomainKey(db, config);
  return { domainName: config.sharedDomain, keySelector: shared.selector, privateKey: shared.privateKey };
}
