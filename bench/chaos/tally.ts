// What a chaos run counts, against the database and the receiver, once the load and the drain are
// over: every message that got a 250 must be stored once and reach the webhook (at least once,
// under one event_id), and the longest wait from its 250 to its first webhook request is reported.
import type { Sql } from "../../src/db.ts";
import type { Sent } from "./load.ts";
import type { Arrival } from "./receiver.ts";

export type Summary = {
  scenario: string;
  sent: number;
  acknowledged: number;
  stored: number;
  delivered: number;
  lost: number;
  duplicated: number;
  longestDelayMs: number;
  notes: string[];
  /** Checks of a scenario's own that failed (for example across copies). */
  failed: string[];
};

export async function tally(
  scenario: string,
  sql: Sql,
  runId: string,
  messages: Sent[],
  arrivals: Map<string, Arrival>,
  notes: string[],
): Promise<Summary> {
  const rows = await sql`
    select subject, count(*)::int as copies from messages
    where direction = 'in' and subject like ${`chaos ${runId} %`} group by subject`;
  const copies = new Map(rows.map((row) => [row.subject as string, row.copies as number]));
  const acknowledged = messages.filter((m) => m.ackedAt !== null);
  let lost = 0;
  let duplicated = 0;
  let longest = 0;
  for (const message of messages) {
    const stored = copies.get(message.subject) ?? 0;
    const arrival = arrivals.get(message.subject);
    if (stored > 1 || (arrival && arrival.eventIds.size > 1)) duplicated++;
    if (message.ackedAt === null) continue;
    if (stored === 0 || !arrival) {
      lost++;
      continue;
    }
    longest = Math.max(longest, arrival.firstAt - message.ackedAt);
  }
  const resent = messages.filter((m) => m.attempts > 1).length;
  const redelivered = [...arrivals.values()].filter((a) => a.requests > 1).length;
  return {
    scenario,
    sent: messages.length,
    acknowledged: acknowledged.length,
    stored: messages.filter((m) => (copies.get(m.subject) ?? 0) > 0).length,
    delivered: messages.filter((m) => arrivals.has(m.subject)).length,
    lost,
    duplicated,
    longestDelayMs: longest,
    notes: [...notes, `${resent} resent by the client`, `${redelivered} delivered again under the same event_id`],
    failed: [],
  };
}

export function summaryLine(s: Summary): string {
  return (
    `chaos ${s.scenario}: sent ${s.sent}, acknowledged ${s.acknowledged}, stored ${s.stored}, delivered ${s.delivered}, ` +
    `lost ${s.lost}, duplicated ${s.duplicated}, longest delay ${(s.longestDelayMs / 1000).toFixed(1)} s (${s.notes.join("; ")})` +
    (s.failed.length > 0 ? ` FAILED: ${s.failed.join("; ")}` : "")
  );
}
