// One-click unsubscribe (RFC 8058) and its mailto twin: every outbound message carries a token
// that is unguessable (80 random bits) and signed (HMAC over the id), so a token cannot be forged
// or enumerated; using it suppresses the recipient for the sending account.
import type { Config } from "../../config.ts";
import type { Db } from "../../db.ts";
import { base64url, constantTimeEqual, hmacSha256HexNow, randomBytes } from "../../secrets.ts";
import { randomBase32 } from "../ids.ts";
import { addSuppression } from "./suppressions.ts";

const ID_LENGTH = 16;
export const TOKEN_PATTERN = /^[0-9a-z]{32}$/;
export const MAILTO_LOCAL_PREFIX = "unsubscribe-";

// The generated secret, kept per service (one config, one database): it is written once and never
// changed, and reading it (with the insert that creates it) cost two round trips on every send.
const storedSecrets = new WeakMap<Config, string>();

async function signingSecret(db: Db, config: Config): Promise<string> {
  if (config.unsubscribeSecret) return config.unsubscribeSecret;
  const known = storedSecrets.get(config);
  if (known) return known;
  await db`insert into service_secrets (name, value) values ('unsubscribe', ${base64url(randomBytes(32))}) on conflict do nothing`;
  const [row] = await db`select value from service_secrets where name = 'unsubscribe'`;
  // Read inside a transaction, the row may be this transaction's own insert: only a committed
  // secret (one another process could have written first) is safe to keep, so that one is not kept.
  if (!("savepoint" in db)) storedSecrets.set(config, row!.value);
  return row!.value;
}

function signature(secret: string, id: string): string {
  // Lower-case base32-ish hex keeps the token safe in an email local part, which MTAs may fold.
  return hmacSha256HexNow(secret, `unsubscribe:${id}`).slice(0, 32 - ID_LENGTH);
}

export type UnsubscribeLinks = { url: string | null; mailto: string };

export async function createUnsubscribeLinks(
  db: Db,
  config: Config,
  input: { accountId: string; address: string; messageId: string },
): Promise<UnsubscribeLinks> {
  const { tokenId, links } = await newUnsubscribeLinks(db, config);
  await db`insert into unsubscribe_tokens (id, account_id, address, message_id) values (${tokenId}, ${input.accountId}, ${input.address.toLowerCase()}, ${input.messageId})`;
  return links;
}

/**
 * A new token's links, before its row exists: the caller stores `tokenId` for the account, the
 * lower-cased recipient and the message (insertOutboundRecord does, with the message itself).
 */
export async function newUnsubscribeLinks(db: Db, config: Config): Promise<{ tokenId: string; links: UnsubscribeLinks }> {
  const id = randomBase32(ID_LENGTH);
  const token = id + signature(await signingSecret(db, config), id);
  return { tokenId: id, links: linksFor(config, token) };
}

function linksFor(config: Config, token: string): UnsubscribeLinks {
  return {
    // RFC 8058 one-click needs https; a service on plain http offers the mailto alone.
    url: config.publicBaseUrl.startsWith("https://") ? `${config.publicBaseUrl}/unsubscribe/${token}` : null,
    mailto: `mailto:${MAILTO_LOCAL_PREFIX}${token}@${config.sharedDomain}?subject=unsubscribe`,
  };
}

/** Suppresses the token's recipient; false when the token is not one we issued. */
export async function unsubscribeWithToken(db: Db, config: Config, token: string): Promise<boolean> {
  if (!TOKEN_PATTERN.test(token)) return false;
  const id = token.slice(0, ID_LENGTH);
  const expected = signature(await signingSecret(db, config), id);
  if (!constantTimeEqual(expected, token.slice(ID_LENGTH))) return false;
  const [row] =
    await db`update unsubscribe_tokens set used_at = coalesce(used_at, now()) where id = ${id} returning account_id, address, message_id`;
  if (!row) return false;
  await addSuppression(db, { accountId: row.account_id, address: row.address, reason: "unsubscribe", sourceMessageId: row.message_id });
  return true;
}
