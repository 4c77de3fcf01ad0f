// How the database grows per 1,000 inbound messages, with and without retention: SpamAssassin
// corpus messages go through the real SMTP listener and worker (screening, events) into a scratch
// database; then every message is aged past a retention of 1 day and purged, and the tables are
// compacted to show what the tombstones keep. Also the rows written per message.
//
//   npx bun scripts/measure-growth.ts [--limit 1000] [--store [--body-threshold BYTES]]
// --store: content goes to an object store (BLOB_STORE_URL at an s3rver started here); the bytes
// the store then holds are printed beside the database's. --body-threshold: the store's
// BLOB_STORE_BODY_THRESHOLD (default 65536), to see what a lower one moves out of `messages`.
import { parseArgs } from "node:util";
import { purgeExpiredContent } from "../src/core/retention.ts";
import type { Sql } from "../src/db.ts";
import { ingest, loadCorpus } from "./ingest-corpus.ts";

const TABLES = ["messages", "raw_messages", "attachments", "event_log", "inbound_first_copies"];

async function sizes(sql: Sql): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const [row] = await sql`select pg_total_relation_size(${table}::regclass)::float8 as bytes`;
    out[table] = row!.bytes;
  }
  const [db] = await sql`select pg_database_size(current_database())::float8 as bytes`;
  out.database = db!.bytes;
  return out;
}

async function writes(sql: Sql): Promise<{ inserted: number; updated: number; deleted: number; commits: number }> {
  await sql`select pg_stat_force_next_flush()`;
  const [row] =
    await sql`select tup_inserted::float8 as inserted, tup_updated::float8 as updated, tup_deleted::float8 as deleted, xact_commit::float8 as commits
    from pg_stat_database where datname = current_database()`;
  return row as never;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      limit: { type: "string", default: "1000" },
      store: { type: "boolean", default: false },
      "body-threshold": { type: "string" },
    },
  });
  const count = Number(values.limit);
  const { makeAccount, makeMailbox, makeTestContext } = await import("../test/support/context.ts");
  const { startSmtpListener } = await import("../smtp/listener.ts");
  const { startWorker } = await import("../worker/runner.ts");
  const messages = loadCorpus().slice(0, count);
  let s3: { close(): Promise<void> } | null = null;
  const env: Record<string, string> = {};
  if (values.store) {
    const { startS3Server } = await import("../test/support/s3-server.ts");
    const server = await startS3Server("mail");
    s3 = server;
    env.BLOB_STORE_URL = server.url;
    if (values["body-threshold"]) env.BLOB_STORE_BODY_THRESHOLD = values["body-threshold"];
  }
  const ctx = await makeTestContext(env);
  const smtp = await startSmtpListener(ctx.svc, { port: 0 });
  const worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  try {
    const account = await makeAccount(ctx);
    const mailbox = await makeMailbox(ctx, account, "growth");
    await ctx.sql`vacuum full`;
    const empty = await sizes(ctx.sql);
    const writesBefore = await writes(ctx.sql);
    const result = await ingest({ port: smtp.port, to: mailbox.address, messages, concurrency: 8 });
    for (;;) {
      const [left] = await ctx.sql`select count(*)::int as n from messages where processed_at is null`;
      if (left!.n === 0) break;
      await Bun.sleep(500);
    }
    const writesAfter = await writes(ctx.sql);
    const [stored] = await ctx.sql`
      select (select coalesce(sum(size), 0) from raw_messages where blob_key is not null)::float8
        + (select coalesce(sum(size), 0) from attachments where blob_key is not null)::float8 as bytes,
        (select count(*) from messages where body_raw_key is not null)::int as raw_bodies,
        (select count(*) from messages where body_clean_key is not null)::int as clean_bodies`;
    // Body objects hold the whole text: read back for their size (the row keeps only the prefix).
    const bodyKeys = await ctx.sql`
      select key from messages, lateral (values (body_raw_key), (body_clean_key)) as k(key) where key is not null`;
    for (const { key } of bodyKeys) stored!.bytes += (await ctx.svc.blobs!.get(key)).byteLength;
    await ctx.sql`vacuum full`;
    const full = await sizes(ctx.sql);
    await ctx.sql`update messages set created_at = now() - interval '2 days'`;
    const started = performance.now();
    const purged = await purgeExpiredContent(ctx.sql, 1);
    const purgeSeconds = (performance.now() - started) / 1000;
    await ctx.sql`vacuum full`;
    const tomb = await sizes(ctx.sql);
    const per = 1000 / result.accepted;
    const row = (name: string) =>
      `  ${name.padEnd(22)} ${mb((full[name]! - empty[name]!) * per).padStart(8)} MB  ${mb((tomb[name]! - empty[name]!) * per).padStart(8)} MB`;
    console.log(
      [
        `${result.accepted} SpamAssassin corpus messages (${mb(result.bytes)} MB on the wire) through SMTP and the worker`,
        `per 1,000 messages:            kept       after retention (tombstones)`,
        ...TABLES.map(row),
        row("database"),
        `  ${"object store".padEnd(22)} ${mb(stored!.bytes * per).padStart(8)} MB  ${mb(0).padStart(8)} MB${values.store ? "" : " (no store)"}`,
        `bodies in the store: ${stored!.raw_bodies} body_raw, ${stored!.clean_bodies} body_clean (of ${result.accepted} messages)`,
        `rows written per message: ${((writesAfter.inserted - writesBefore.inserted) / result.accepted).toFixed(1)} inserted, ` +
          `${((writesAfter.updated - writesBefore.updated) / result.accepted).toFixed(1)} updated, ` +
          `${((writesAfter.deleted - writesBefore.deleted) / result.accepted).toFixed(1)} deleted, ` +
          `${((writesAfter.commits - writesBefore.commits) / result.accepted).toFixed(1)} commits`,
        `retention purge: ${purged} messages in ${purgeSeconds.toFixed(2)} s (${(purged / purgeSeconds).toFixed(0)} messages/s, batches of 500)`,
      ].join("\n"),
    );
  } finally {
    await worker.stop();
    await smtp.close();
    await ctx.close();
    await s3?.close();
  }
}

if (import.meta.main) await main();
