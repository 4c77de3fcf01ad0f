// How fast the dashboard's oversight pages render over a large account: a fresh database filled
// with one account, two mailboxes and N inbound messages spread over the last 30 days (a share of
// them spam or injection risks), outbound sends, and a webhook delivery and attempt per inbound
// message. Each page is fetched sequentially over loopback HTTP, signed in, `--requests` times;
// p50 and p95 are printed per page.
//
//   npm run bench -- dashboard [--messages 100000] [--requests 40]
import { createUser } from "../src/core/accounts/users.ts";
import { startHttpServer } from "../src/http/server.ts";
import { makeAccount, makeMailbox, makeTestContext } from "../test/support/context.ts";
import { DashboardClient } from "../test/support/dashboard-client.ts";

type Options = { messages: number; requests: number };

function parseOptions(args: string[]): Options {
  const options: Options = { messages: 100_000, requests: 40 };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if ((flag === "--messages" || flag === "--requests") && value && /^\d+$/.test(value))
      options[flag.slice(2) as keyof Options] = Number(value);
    else throw new Error(`usage: npm run bench -- dashboard [--messages N] [--requests N]; bad argument ${flag}`);
  }
  return options;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const ctx = await makeTestContext({ HTTP_PORT: "0", LOG_LEVEL: "silent" });
  const server = startHttpServer(ctx.svc, ctx.app);
  try {
    const owner = await makeAccount(ctx);
    const busy = await makeMailbox(ctx, owner, "busy");
    const quiet = await makeMailbox(ctx, owner, "quiet");
    await createUser(ctx.sql, { accountId: owner.accountId, email: "bench@example.com", password: "bench password long" });
    const started = performance.now();
    // Nine in ten messages to the busy mailbox; every 20th spam, every 50th an injection risk.
    await ctx.sql`
      insert into messages (id, account_id, mailbox_id, direction, thread_id, from_addr, to_addr, subject, body_clean, sanitization,
        comprehension, spam_risk, processed_at, created_at)
      select 'msg_bench' || g, ${owner.accountId}, case when g % 10 = 0 then ${quiet.id} else ${busy.id} end, 'in', 'thr_bench' || (g / 3),
        'sender' || (g % 500) || '@example.org', 'agent@example', 'Subject ' || g, 'Body of message ' || g, '{}'::jsonb,
        jsonb_build_object('status', case when g % 50 = 0 then 'skipped_injection_risk' else 'complete' end,
          'classification', jsonb_build_object('label', 'personal', 'confidence', 0.8),
          'injection', jsonb_build_object('score', 0.1, 'risky', g % 50 = 0, 'threshold', 0.5, 'signals', '[]'::jsonb)),
        case when g % 20 = 0 then 'high' else 'low' end, now(), now() - (g::double precision / ${options.messages}) * interval '30 days'
      from generate_series(1, ${options.messages}) g`;
    await ctx.sql`
      insert into messages (id, account_id, mailbox_id, direction, thread_id, from_addr, to_addr, subject, body_clean, delivery_status, created_at)
      select 'msg_benchout' || g, ${owner.accountId}, ${busy.id}, 'out', 'thr_bench' || g, 'agent@example', 'r@example.org', 'Re ' || g, 'ok',
        'sent', now() - (g::double precision / ${options.messages / 10}) * interval '30 days'
      from generate_series(1, ${Math.floor(options.messages / 10)}) g`;
    await ctx.sql`
      insert into webhook_events (id, account_id, message_id, payload, created_at)
      select 'evt_' || m.id, m.account_id, m.id, '{}', m.created_at from messages m where m.account_id = ${owner.accountId} and m.direction = 'in'`;
    await ctx.sql`
      insert into webhook_deliveries (id, event_id, account_id, state, attempts, created_at)
      select 'whd_' || e.message_id, e.id, e.account_id, case when right(e.message_id, 2) = '13' then 'dead' else 'delivered' end, 1, e.created_at
      from webhook_events e where e.account_id = ${owner.accountId}`;
    await ctx.sql`
      insert into webhook_attempts (delivery_id, attempted_at, url, status, latency_ms)
      select d.id, d.created_at, 'https://hook.example/', 200, 20 + (abs(hashtext(d.id)) % 200) from webhook_deliveries d where d.account_id = ${owner.accountId}`;
    await ctx.sql`analyze`;
    console.log(
      `filled: ${options.messages} inbound, ${Math.floor(options.messages / 10)} outbound, ${options.messages} webhook deliveries in ${Math.round(performance.now() - started)} ms`,
    );

    const client = await DashboardClient.signIn(`http://127.0.0.1:${server.port}`, "bench@example.com", "bench password long");
    // A deep page: the cursor of the 5000th newest message of the busy mailbox.
    const [deep] =
      await ctx.sql`select id from messages where mailbox_id = ${busy.id} order by created_at desc, id desc offset 5000 limit 1`;
    const pages: [string, string][] = [
      ["mail list, first page", `/dashboard/mail?mailbox=${busy.id}`],
      ["mail list, page 200", `/dashboard/mail?mailbox=${busy.id}&before=${deep!.id}`],
      ["mail list, outbound only", `/dashboard/mail?mailbox=${busy.id}&direction=out`],
      ["message", `/dashboard/mail/msg_bench77`],
      ["activity, account", "/dashboard/activity"],
      ["activity, one mailbox", `/dashboard/activity?mailbox=${quiet.id}`],
      ["people (audit trail)", "/dashboard/people"],
    ];
    console.log(`page                          p50 ms   p95 ms   (${options.requests} sequential requests each, after 3 warm-up)`);
    for (const [name, path] of pages) {
      for (let i = 0; i < 3; i++) await client.get(path);
      const times: number[] = [];
      for (let i = 0; i < options.requests; i++) {
        const t = performance.now();
        const reply = await client.get(path);
        times.push(performance.now() - t);
        if (reply.status !== 200) throw new Error(`${path}: ${reply.status}`);
      }
      times.sort((a, b) => a - b);
      console.log(`${name.padEnd(28)} ${percentile(times, 0.5).toFixed(1).padStart(7)} ${percentile(times, 0.95).toFixed(1).padStart(8)}`);
    }
  } finally {
    await server.stop();
    await ctx.close();
  }
}
