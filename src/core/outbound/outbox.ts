// The local outbox: what the `local` transport kept instead of sending to the outside world.
import type { Db } from "../../db.ts";
import { errors } from "../errors.ts";

export type OutboxEntry = { id: string; message_id: string | null; mail_from: string; rcpt_to: string; size: number; created_at: string };

export async function listOutbox(db: Db, limit: number): Promise<OutboxEntry[]> {
  return db<OutboxEntry[]>`
    select id, message_id, mail_from, rcpt_to, length(raw) as size, created_at from local_outbox
    order by created_at desc, id desc limit ${Math.min(Math.max(limit, 1), 1000)}`;
}

export async function showOutboxMessage(db: Db, id: string): Promise<OutboxEntry & { raw: string }> {
  const [row] =
    await db`select id, message_id, mail_from, rcpt_to, length(raw) as size, created_at, raw from local_outbox where id = ${id}`;
  if (!row) throw errors.notFound("message");
  return { ...(row as unknown as OutboxEntry), raw: new TextDecoder().decode(row.raw) };
}
