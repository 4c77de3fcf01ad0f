// Inbox state: labels on messages and threads, so an agent marks what it has handled instead of
// re-reading its mailbox. A label is a short lower-case name; three are the service's own:
//   read / unread  an inbound message is `unread` until it is marked `read` (only `read` is
//                  stored; adding `unread` removes it); outbound mail is always read
//   archived       stored like any name; the listings do not hide it, a client filters on it
// A thread's labels are its messages': a name any message carries, except `read` and `archived`,
// which a thread has only when every message has them, so new mail makes it unread and unarchived.
// Changes need `can_read` (bookkeeping of reading, not sending: a read-only triage key may mark mail).
import type { Db, Sql } from "../db.ts";
import { errors } from "./errors.ts";
import type { Principal } from "./principal.ts";

export const LABEL_LIMITS = { perMessage: 50, perChange: 20, batchMessages: 100, length: 64 } as const;
const LABEL = /^[a-z0-9][a-z0-9_.:/-]{0,63}$/;
const ALL_MESSAGES_LABELS = new Set(["read", "archived"]);

export type LabelChange = { add?: string[]; remove?: string[] };

/** A label as stored: trimmed, lower case, checked. */
export function normalizeLabel(raw: string): string {
  const label = raw.trim().toLowerCase();
  if (!LABEL.test(label)) {
    throw errors.validation(
      `label must be 1 to ${LABEL_LIMITS.length} characters of a-z, 0-9 and _ . : / - (starting with a letter or digit): ${JSON.stringify(raw.slice(0, 80))}`,
    );
  }
  return label;
}

/** The stored labels to add and remove; `unread` becomes the removal (or addition) of `read`. */
function storedChange(change: LabelChange): { add: string[]; remove: string[] } {
  const add = new Set<string>();
  const remove = new Set<string>();
  for (const raw of change.add ?? []) {
    const label = normalizeLabel(raw);
    if (label === "unread") remove.add("read");
    else add.add(label);
  }
  for (const raw of change.remove ?? []) {
    const label = normalizeLabel(raw);
    if (label === "unread") add.add("read");
    else remove.add(label);
  }
  if (add.size + remove.size === 0) throw errors.validation("add or remove at least one label");
  for (const label of add) if (remove.has(label)) throw errors.validation(`label ${label} is both added and removed`);
  return { add: [...add], remove: [...remove] };
}

/** A filter on message rows (`id`, `direction` of the query's messages): they carry `label`. */
export function messageLabelFilter(db: Db, raw: string) {
  const label = normalizeLabel(raw);
  const has = (name: string) => db`exists (select 1 from message_labels l where l.message_id = id and l.label = ${name})`;
  if (label === "unread") return db`(direction = 'in' and not ${has("read")})`;
  if (label === "read") return db`(direction = 'out' or ${has("read")})`;
  return has(label);
}

/** A filter on message rows `m` (thread listings): their thread carries `label`. */
export function threadLabelFilter(db: Db, raw: string) {
  const label = normalizeLabel(raw);
  type Fragment = ReturnType<typeof db>;
  const sibling = (condition: Fragment): Fragment => db`
    exists (select 1 from messages x where x.mailbox_id = m.mailbox_id and x.thread_id = m.thread_id
      and (x.delivery_status is null or x.delivery_status = 'sent') and ${condition})`;
  const has = (name: string): Fragment => db`exists (select 1 from message_labels l where l.message_id = x.id and l.label = ${name})`;
  if (label === "unread") return sibling(db`x.direction = 'in' and not ${has("read")}`);
  if (label === "read") return db`not ${sibling(db`x.direction = 'in' and not ${has("read")}`)}`;
  if (label === "archived") return db`not ${sibling(db`not ${has("archived")}`)}`;
  return sibling(has(label));
}

/** Each message's labels, `unread` included where it applies, sorted. */
async function labelsByMessage(db: Db, ids: string[]): Promise<Map<string, string[]>> {
  const rows = await db`
    select m.id, m.direction, coalesce(array_agg(l.label order by l.label) filter (where l.label is not null), '{}') as labels
    from messages m left join message_labels l on l.message_id = m.id
    where m.id = any(${ids}::text[]) group by m.id, m.direction`;
  return new Map(
    rows.map((row) => {
      const labels = row.labels as string[];
      return [row.id as string, row.direction === "in" && !labels.includes("read") ? [...labels, "unread"].sort() : labels];
    }),
  );
}

/** The ids among `ids` that GET /messages/{id} would show the principal. */
async function visibleIds(db: Db, principal: Principal, ids: string[]): Promise<string[]> {
  const rows = await db`
    select id from messages
    where id = any(${ids}::text[]) and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
      and (delivery_status is null or delivery_status = 'sent')`;
  return rows.map((row) => row.id as string);
}

async function threadMessageIds(db: Db, principal: Principal, threadId: string): Promise<string[]> {
  const rows = await db`
    select id from messages
    where thread_id = ${threadId} and account_id = ${principal.accountId}
      and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
      and (delivery_status is null or delivery_status = 'sent')`;
  if (rows.length === 0) throw errors.notFound("thread");
  return rows.map((row) => row.id as string);
}

/** Applies a change to messages already known visible; at most LABEL_LIMITS.perMessage labels each. */
async function apply(sql: Sql, accountId: string, ids: string[], change: { add: string[]; remove: string[] }): Promise<void> {
  if (ids.length === 0) return;
  await sql.begin(async (tx) => {
    if (change.remove.length) {
      await tx`delete from message_labels where message_id = any(${ids}::text[]) and label = any(${change.remove}::text[])`;
    }
    if (change.add.length) {
      await tx`
        insert into message_labels (message_id, label, account_id)
        select i, l, ${accountId} from unnest(${ids}::text[]) as i cross join unnest(${change.add}::text[]) as l
        on conflict do nothing`;
      const [over] = await tx`
        select message_id from message_labels where message_id = any(${ids}::text[])
        group by message_id having count(*) > ${LABEL_LIMITS.perMessage} limit 1`;
      if (over) throw errors.validation(`a message may carry at most ${LABEL_LIMITS.perMessage} labels`);
    }
  });
}

function threadLabels(perMessage: string[][]): string[] {
  const any = new Set(perMessage.flat());
  for (const label of ALL_MESSAGES_LABELS) if (!perMessage.every((labels) => labels.includes(label))) any.delete(label);
  return [...any].sort();
}

export async function getMessageLabels(db: Db, principal: Principal, messageId: string): Promise<string[]> {
  if ((await visibleIds(db, principal, [messageId])).length === 0) throw errors.notFound("message");
  return (await labelsByMessage(db, [messageId])).get(messageId) ?? [];
}

export async function changeMessageLabels(sql: Sql, principal: Principal, messageId: string, change: LabelChange): Promise<string[]> {
  const stored = storedChange(change);
  if ((await visibleIds(sql, principal, [messageId])).length === 0) throw errors.notFound("message");
  await apply(sql, principal.accountId, [messageId], stored);
  return (await labelsByMessage(sql, [messageId])).get(messageId) ?? [];
}

export async function getThreadLabels(db: Db, principal: Principal, threadId: string): Promise<string[]> {
  const ids = await threadMessageIds(db, principal, threadId);
  return threadLabels([...(await labelsByMessage(db, ids)).values()]);
}

export async function changeThreadLabels(sql: Sql, principal: Principal, threadId: string, change: LabelChange): Promise<string[]> {
  const stored = storedChange(change);
  const ids = await threadMessageIds(sql, principal, threadId);
  await apply(sql, principal.accountId, ids, stored);
  return threadLabels([...(await labelsByMessage(sql, ids)).values()]);
}

/** One change over up to LABEL_LIMITS.batchMessages messages; ids not visible are reported, never told apart. */
export async function batchChangeLabels(
  sql: Sql,
  principal: Principal,
  input: LabelChange & { message_ids: string[] },
): Promise<{ updated: string[]; not_found: string[] }> {
  const stored = storedChange(input);
  const requested = [...new Set(input.message_ids)];
  if (requested.length > LABEL_LIMITS.batchMessages) {
    throw errors.validation(`message_ids may hold at most ${LABEL_LIMITS.batchMessages} ids`);
  }
  const visible = new Set(await visibleIds(sql, principal, requested));
  const updated = requested.filter((id) => visible.has(id));
  await apply(sql, principal.accountId, updated, stored);
  return { updated, not_found: requested.filter((id) => !visible.has(id)) };
}
