// Event cursors as clients see them. Inside, a cursor is a position in the one event log every
// account shares, so handing positions out would let an account read the others' volume in the
// gaps between its own. Outside, a cursor is that position and a tag of its account, encrypted
// together as one AES block under a key kept in the database (service_secrets, shared by every
// process): 22 base64url characters that reveal nothing and that only the account they were
// given to can use. A cursor of another account fails the tag check and gets the answer of any
// malformed cursor. Deterministic, so one event has one cursor however often it is read.
//
// Decimal cursors handed out before this format keep working up to the newest position of the
// upgrade (sql/0045_event_cursor_legacy.sql records it): they name positions the client was given
// already, while a larger decimal would let it probe where its later events fall. "0" (or none) is
// the start of the log.
import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "../../db.ts";
import { base64url, randomBytes } from "../../secrets.ts";
import { errors } from "../errors.ts";

export type EventCursors = {
  /** The cursor a client of `accountId` is given for a log position ("0": the start stays "0"). */
  encode(accountId: string, position: string | number | bigint): string;
  /** The log position a client of `accountId` named; 400 for anything not given to that account. */
  decode(accountId: string, cursor: string | null | undefined): string;
};

const START = "0";
const TOKEN = /^[A-Za-z0-9_-]{22}$/;
const LEGACY = /^\d{1,18}$/;
const TAG_BYTES = 8;
const MAX_CACHED_TAGS = 10_000;
/** Postgres bigint's largest value. */
const MAX_POSITION = 0x7fffffffffffffffn;

const invalid = () => errors.validation("cursor must be a cursor returned by this API");

export function makeEventCursors(secret: string, legacyMax: bigint): EventCursors {
  const blockKey = createHmac("sha256", secret).update("event cursor: block key").digest();
  // Every event a feed sends is encoded: each account's tag is kept (a bounded few), and one
  // cipher each way serves every block (ECB without padding keeps nothing between blocks, so it
  // is never finished).
  const tags = new Map<string, Buffer>();
  const tagOf = (accountId: string) => {
    let tag = tags.get(accountId);
    if (!tag) {
      if (tags.size >= MAX_CACHED_TAGS) tags.clear();
      tag = createHmac("sha256", secret).update(`event cursor: account ${accountId}`).digest().subarray(0, TAG_BYTES);
      tags.set(accountId, tag);
    }
    return tag;
  };
  const encrypt = createCipheriv("aes-256-ecb", blockKey, null).setAutoPadding(false);
  const decrypt = createDecipheriv("aes-256-ecb", blockKey, null).setAutoPadding(false);
  const block = (data: Buffer, forward: boolean) => {
    const out = (forward ? encrypt : decrypt).update(data);
    if (out.byteLength !== 16) throw new Error("event cursor cipher out of step");
    return out;
  };
  return {
    encode(accountId, position) {
      const value = BigInt(position);
      if (value === 0n) return START;
      const plain = Buffer.alloc(16);
      plain.writeBigUInt64BE(value, 0);
      tagOf(accountId).copy(plain, 8);
      return block(plain, true).toString("base64url");
    },
    decode(accountId, cursor) {
      if (cursor === null || cursor === undefined || cursor === "" || cursor === START) return START;
      if (LEGACY.test(cursor)) {
        const value = BigInt(cursor);
        if (value > legacyMax) throw invalid();
        return String(value);
      }
      if (!TOKEN.test(cursor)) throw invalid();
      const plain = block(Buffer.from(cursor, "base64url"), false);
      if (!timingSafeEqual(plain.subarray(8), tagOf(accountId))) throw invalid();
      const value = plain.readBigUInt64BE(0);
      if (value === 0n || value > MAX_POSITION) throw invalid();
      return String(value);
    },
  };
}

// Loaded once per connection pool: the key is written once and never changed. A transaction (it
// may hold its own uncommitted insert of the key) reads it every time and keeps nothing.
const loaded = new WeakMap<object, Promise<EventCursors>>();

export function eventCursors(db: Db): Promise<EventCursors> {
  if ("savepoint" in db) return load(db);
  let codec = loaded.get(db);
  if (!codec) {
    codec = load(db);
    loaded.set(db, codec);
    codec.catch(() => loaded.delete(db));
  }
  return codec;
}

async function load(db: Db): Promise<EventCursors> {
  await db`insert into service_secrets (name, value) values ('event_cursor', ${base64url(randomBytes(32))}) on conflict do nothing`;
  const rows = await db`select name, value from service_secrets where name in ('event_cursor', 'event_cursor_legacy_max')`;
  const value = (name: string) => rows.find((row) => row.name === name)?.value as string | undefined;
  return makeEventCursors(value("event_cursor")!, BigInt(value("event_cursor_legacy_max") ?? "0"));
}
