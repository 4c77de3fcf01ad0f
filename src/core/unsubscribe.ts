// One-click unsubscribe (RFC 8058) and its mailto twin: every outbound message carries a token
// that is unguessable (80 random bits) and signed (HMAC over the id), so a token cannot be forged
// or enumerated; using it suppresses the recipient for the sending account.
import type { Config } from "../config.ts";
import type { Db } from "../db.ts";
import { randomBase32 } from "./ids.ts";
import { base64url, constantTimeEqual, hmacSha256Hex, randomBytes } from "../secrets.ts";
import { addSuppression } from "./suppressions.ts";

const ID_LENGTH = 16;
export const TOKEN_PATTERN = /^[0-9a-z]{32}$/;
export const MAILTO_LOCAL_PREFIX = "unsubscribe-";

async function signingSecret(db: Db, config: Config): Promise<string> {
  if (config.unsubscribeSecret) return config.unsubscribeSecret;
  await db`insert into service_secrets (name, value) values ('unsubscribe', ${base64url(randomBytes(32))}) on conflict do nothing`;
  const [row] = await db`select value from service_secrets where name = 'unsubscribe'`;
  return row!.value;
}

async function signature(secret: string, id: string): Promise<string> {
  // Lower-case base32-ish hex keeps the token safe in an email local part, which MTAs may fold.
  return (await hmacSha256Hex(secret, `unsubscribe:${id}`)).slice(0, 32 - ID_LENGTH);
}

export async function createUnsubscribeLinks(
  db: Db,
  config: Config,
  input: { accountId: string; address: string; messageId: string },
): Promise<{ url: string | null; mailto: string }> {
  const id = randomBase32(ID_LENGTH);
  await db`insert into unsubscribe_tokens (id, account_id, address, message_id) values (${id}, ${input.accountId}, ${input.address.toLowerCase()}, ${input.messageId})`;
  const token = id + (await signature(await signingSecret(db, config), id));
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
  const expected = await signature(await signingSecret(db, config), id);
  if (!constantTimeEqual(expected, token.slice(ID_LENGTH))) return false;
  const [row] =
    await db`update unsubscribe_tokens set used_at = coalesce(used_at, now()) where id = ${id} returning account_id, address, message_id`;
  if (!row) return false;
  await addSuppression(db, { accountId: row.account_id, address: row.address, reason: "unsubscribe", sourceMessageId: row.message_id });
  return true;
}
