// Where the time of one accepted message goes, stage by stage, measured in-process on the bench's
// own database with the same functions the listener calls: the recipient look-up (made once, at
// RCPT), parsing, sanitizing, hashing, and the accept transaction as a whole (one round trip);
// and, for scale, one bare round trip to the database.
import { acceptInbound, lookupRecipient } from "../../src/core/inbound/store.ts";
import type { Mailbox } from "../../src/core/mailboxes.ts";
import type { Services } from "../../src/core/services.ts";
import { parseInbound } from "../../src/mail/parse.ts";
import { sanitizeBody } from "../../src/mail/sanitize.ts";
import { sha256HexNow } from "../../src/secrets.ts";

export type StageRow = { stage: string; p50: number; mean: number };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** `rounds` messages one after another (no concurrency: the cost of each stage alone). */
export async function profileInbound(svc: Services, address: string, makeMessage: () => Buffer, rounds: number): Promise<StageRow[]> {
  const times: Record<string, number[]> = { lookup: [], parse: [], sanitize: [], sha256: [], accept: [], roundTrip: [] };
  for (let i = 0; i < rounds; i++) {
    const raw = makeMessage();
    let t = performance.now();
    const found = await lookupRecipient(svc, address);
    times.lookup!.push(performance.now() - t);
    if (found.kind !== "mailbox") throw new Error(`profile: ${address} is not a mailbox`);
    t = performance.now();
    const parsed = await parseInbound(raw);
    times.parse!.push(performance.now() - t);
    t = performance.now();
    sanitizeBody({ text: parsed.text, html: parsed.html }, { maxChars: svc.config.bodyCleanMaxChars });
    times.sanitize!.push(performance.now() - t);
    t = performance.now();
    sha256HexNow(raw);
    times.sha256!.push(performance.now() - t);
    t = performance.now();
    await acceptInbound(svc, raw, [found.mailbox as Mailbox], {
      remoteIp: "127.0.0.1",
      helo: "bench.client",
      mailFrom: "sender@bench.example",
    });
    times.accept!.push(performance.now() - t);
    t = performance.now();
    await svc.sql`select 1`;
    times.roundTrip!.push(performance.now() - t);
  }
  const parseSanitizeHash = times.parse!.map((p, i) => p + times.sanitize![i]! + times.sha256![i]!);
  // acceptInbound parses, sanitizes and hashes again before its transaction: what remains is the
  // transaction (BEGIN, claim, raw row, message row, job, COMMIT in one round trip; the commit's
  // WAL flush included).
  const transaction = times.accept!.map((a, i) => Math.max(0, a - parseSanitizeHash[i]!));
  return [
    { stage: "recipient look-up (once, at RCPT)", p50: median(times.lookup!), mean: mean(times.lookup!) },
    { stage: "parse (mailparser)", p50: median(times.parse!), mean: mean(times.parse!) },
    { stage: "sanitize body", p50: median(times.sanitize!), mean: mean(times.sanitize!) },
    { stage: "sha256 of raw", p50: median(times.sha256!), mean: mean(times.sha256!) },
    { stage: "accept transaction incl. commit (1 round trip)", p50: median(transaction), mean: mean(transaction) },
    { stage: "for scale: one round trip (select 1)", p50: median(times.roundTrip!), mean: mean(times.roundTrip!) },
  ];
}
