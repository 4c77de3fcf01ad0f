// Search, threads and older mail on a big mailbox: a fresh database, one mailbox of N generated
// messages (default 100,000; SQL generate_series, Zipf-like word frequencies, 10% with attachment
// text) beside a second mailbox of N/5 as noise, then each query kind run repeatedly through the
// core functions the routes call; p50/p99 per kind. The database is dropped afterwards.
//
//   npm run bench -- search [--messages 100000] [--runs 40] [--keep]

import { createAccount } from "../src/core/accounts/accounts.ts";
import { listMessagesPage } from "../src/core/messages.ts";
import type { Principal } from "../src/core/principal.ts";
import { type SearchInput, searchMessages } from "../src/core/search.ts";
import { listThreads } from "../src/core/threads.ts";
import { makeSql } from "../src/db.ts";
import { createTestDatabase } from "../test/support/database.ts";

// Common words first: the generator draws low indexes far more often (power of a uniform draw).
const COMMON = (
  "the and to of a in for is on that your with this you it be are from at as have we our will can please order invoice " +
  "payment account meeting thanks hello regards team update shipping delivery tracking number booking reference ticket " +
  "support request password code confirm subscription renewal refund receipt amount total due date schedule project report " +
  "review contract proposal budget quarterly customer service product release feature issue error login security alert " +
  "travel flight hotel reservation itinerary train rechnung zahlung bestellung lieferung facture commande livraison pedido " +
  "factura entrega fattura ordine consegna"
).split(" ");

type Options = { messages: number; runs: number; keep: boolean };

function parseOptions(args: string[]): Options {
  const options: Options = { messages: 100_000, runs: 40, keep: false };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--keep") {
      options.keep = true; // leave the database for EXPLAIN; its URL is printed
      i--;
      continue;
    }
    if ((flag === "--messages" || flag === "--runs") && value && /^\d+$/.test(value))
      options[flag.slice(2) as "messages" | "runs"] = Number(value);
    else throw new Error(`usage: npm run bench -- search [--messages N] [--runs N]; bad argument ${flag}`);
  }
  return options;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const database = await createTestDatabase();
  const sql = makeSql(database.url, { max: 4 });
  try {
    const account = await createAccount(sql, { name: "bench", plan: "free" });
    const mailboxes = ["big", "noise"].map((slug) => ({ id: `mbx_bench${slug}`, address: `agent-${slug}@bench.localhost` }));
    for (const mailbox of mailboxes) {
      await sql`insert into mailboxes (id, account_id, local_part, domain_name, address) values (${mailbox.id}, ${account.id}, ${mailbox.address.split("@")[0]!}, ${"bench.localhost"}, ${mailbox.address})`;
    }
    const principal: Principal = {
      keyId: "key_bench",
      accountId: account.id,
      plan: "free",
      scope: "api",
      mailboxId: null,
      canRead: true,
      canSend: true,
    };

    const started = performance.now();
    await generate(sql, account.id, mailboxes[0]!, options.messages, "b");
    await generate(sql, account.id, mailboxes[1]!, Math.floor(options.messages / 5), "n");
    await sql`vacuum analyze messages`;
    const [{ size }] = await sql`select pg_size_pretty(pg_relation_size('messages_search')) as size`;
    console.log(
      `generated ${options.messages} + ${Math.floor(options.messages / 5)} messages in ${((performance.now() - started) / 1000).toFixed(1)} s; GIN index ${size}`,
    );

    const mailboxId = mailboxes[0]!.id;
    const base = { mailboxId, limit: 20 } satisfies Partial<SearchInput>;
    const kinds: [string, () => Promise<unknown>][] = [
      ["search: common word (invoice)", () => searchMessages(sql, principal, { ...base, q: "invoice" })],
      ["search: two words (payment refund)", () => searchMessages(sql, principal, { ...base, q: "payment refund" })],
      ['search: phrase ("tracking number")', () => searchMessages(sql, principal, { ...base, q: '"tracking number"' })],
      ["search: rare identifier (REF-77123)", () => searchMessages(sql, principal, { ...base, q: "REF-77123" })],
      ["search: prefix (rech*)", () => searchMessages(sql, principal, { ...base, q: "rech*" })],
      [
        "search: word + from domain + dates",
        () => searchMessages(sql, principal, { ...base, q: "order", from: "shop3.example", after: "2025-01-01", before: "2025-07-01" }),
      ],
      ["search: attachment text (manifest)", () => searchMessages(sql, principal, { ...base, q: "manifest", hasAttachment: false })],
      ["search: filters only (from, direction)", () => searchMessages(sql, principal, { ...base, from: "shop3.example", direction: "in" })],
      [
        "search: second page (cursor)",
        async () => {
          const first = await searchMessages(sql, principal, { ...base, q: "invoice" });
          return searchMessages(sql, principal, { ...base, q: "invoice", cursor: first.nextCursor! });
        },
      ],
      ["threads: first page (20)", () => listThreads(sql, principal, mailboxId, 20)],
      [
        "messages: page 50 deep via cursor (100 per page)",
        async () => {
          let cursor: string | undefined;
          for (let page = 0; page < 50; page++)
            cursor = (await listMessagesPage(sql, principal, mailboxId, 100, cursor)).nextCursor ?? undefined;
        },
      ],
    ];
    console.log(
      `\n| Query (${options.messages.toLocaleString("en")} messages in the mailbox, ${options.runs} runs each) | p50 ms | p99 ms | results |`,
    );
    console.log("|---|---|---|---|");
    for (const [name, query] of kinds) {
      const warm = (await query()) as { results?: unknown[]; threads?: unknown[] } | undefined;
      const times: number[] = [];
      for (let i = 0; i < options.runs; i++) {
        const t0 = performance.now();
        await query();
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const count = warm?.results?.length ?? warm?.threads?.length ?? "—";
      console.log(`| ${name} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${count} |`);
    }
  } finally {
    await sql.end({ timeout: 5 });
    if (options.keep) console.log(`kept ${database.url}`);
    else await database.drop();
  }
}

/** N messages in one statement: words drawn with a skew toward the common ones, spread over 2024–2026. */
async function generate(
  sql: ReturnType<typeof makeSql>,
  accountId: string,
  mailbox: { id: string; address: string },
  count: number,
  tag: string,
) {
  const batch = 25_000;
  for (let start = 1; start <= count; start += batch) {
    const end = Math.min(count, start + batch - 1);
    // Screened mail: each row carries the search document screening writes (sql/0020).
    await sql`
      insert into messages (id, account_id, mailbox_id, direction, thread_id, from_addr, to_addr, subject, body_clean, attachment_text, created_at, processed_at, search)
      select s.*, message_search_document(s.subject, s.from_addr, s.body_clean, s.attachment_text)
      from (select 'msg_' || ${tag} || g, ${accountId}, ${mailbox.id},
        case when g % 7 = 0 then 'out' else 'in' end,
        'thr_' || ${tag} || (g / 3),
        case when g % 7 = 0 then ${mailbox.address} else 'sender' || (g % 400) || '@shop' || (g % 9) || '.example' end,
        case when g % 7 = 0 then 'peer' || (g % 400) || '@shop' || (g % 9) || '.example' else ${mailbox.address} end,
        (select string_agg(case when x < ${COMMON.length} then (${COMMON}::text[])[x + 1] else 'w' || to_hex(x) end, ' ') from (select floor(power(random(), 3) * 20000)::int as x from generate_series(1, 5 + (g % 4)) where g > 0) as draw)
          || case when g % 1000 = 123 then ' REF-' || g else '' end,
        (select string_agg(case when x < ${COMMON.length} then (${COMMON}::text[])[x + 1] else 'w' || to_hex(x) end, ' ') from (select floor(power(random(), 3) * 20000)::int as x from generate_series(1, 40 + (g % 80)) where g > 0) as draw),
        case when g % 10 = 0 then 'pallet manifest ' || (select string_agg(case when x < ${COMMON.length} then (${COMMON}::text[])[x + 1] else 'w' || to_hex(x) end, ' ') from (select floor(power(random(), 3) * 20000)::int as x from generate_series(1, 50) where g > 0) as draw) end,
        timestamptz '2024-01-01' + (g::float / ${count}) * interval '900 days' + random() * interval '1 hour',
        now()
      from generate_series(${start}::int, ${end}::int) as g)
        as s(id, account_id, mailbox_id, direction, thread_id, from_addr, to_addr, subject, body_clean, attachment_text, created_at, processed_at)`;
  }
}
