// `npm run chaos -- copies`: two copies of every role, the way the README says to run them
// (ROLES=api, ROLES=smtp, ROLES=worker, separate ports, one database). SMTP load is spread over
// both listeners as an MTA spreads over two MX hosts, HTTP reads over both APIs as a load balancer
// would, and at mid-load one copy of each role is SIGKILLed. Across the copies it checks that one
// client_id sent to both APIs at the same instant sends once, that sign-in throttling counts
// failures made on either API, and that a stream client on one API hears events produced through
// the other (LISTEN/NOTIFY with a catch-up read of the event log), and that one key flooding both
// APIs is held to its rate across both (the bucket lives in PostgreSQL).
import { readFileSync } from "node:fs";
import { createKey } from "../../src/core/accounts/keys.ts";
import { createUser } from "../../src/core/accounts/users.ts";
import { leaseChunk } from "../../src/request/rate-limit.ts";
import { DashboardClient, hiddenField } from "../../test/support/dashboard-client.ts";
import type { Run, Scenario } from "./harness.ts";
import type { ServiceProcess } from "./service.ts";

/**
 * From the workers' own log lines (job.succeeded / job.failed carry the end time and duration):
 * runs of one job by two different workers whose time spans overlap. Must be none.
 */
function overlappingRuns(workers: ServiceProcess[], run: Run): string {
  const spans = new Map<string, { worker: string; from: number; to: number }[]>();
  let runs = 0;
  for (const worker of workers) {
    for (const line of readFileSync(worker.logPath, "utf8").split("\n")) {
      if (!line.includes('"job.succeeded"') && !line.includes('"job.failed"')) continue;
      const entry = JSON.parse(line) as { time: string; job_id: string; duration_ms: number | null };
      const to = Date.parse(entry.time);
      const list = spans.get(entry.job_id) ?? [];
      list.push({ worker: worker.name, from: to - (entry.duration_ms ?? 0), to });
      spans.set(entry.job_id, list);
      runs++;
    }
  }
  let overlaps = 0;
  for (const list of spans.values()) {
    for (const a of list) for (const b of list) if (a !== b && a.worker < b.worker && a.from < b.to && b.from < a.to) overlaps++;
  }
  if (overlaps > 0) run.fail(`${overlaps} jobs ran in two workers at once`);
  return `${runs} job runs logged by the workers, ${overlaps} overlapping in two workers`;
}

/** An SSE client that keeps the subjects of every message.received event it is sent. */
function streamSubjects(base: string, apiKey: string): { subjects: Set<string>; close(): void } {
  const subjects = new Set<string>();
  const abort = new AbortController();
  void (async () => {
    const response = await fetch(`${base}/api/v1/events/stream`, { headers: { authorization: `Bearer ${apiKey}` }, signal: abort.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split("\n").find((line) => line.startsWith("data: "));
        if (data) subjects.add((JSON.parse(data.slice(6)) as { subject: string }).subject);
      }
    }
  })().catch(() => {});
  return { subjects, close: () => abort.abort() };
}

/** Reads over both APIs, alternating; a refused connection goes to the other copy, as a balancer's health check would. */
function httpLoad(bases: string[], run: Run): { stop(): Promise<string> } {
  let stopped = false;
  let ok = 0;
  let failedOver = 0;
  let errors = 0;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      for (let attempt = 0; attempt < bases.length; attempt++) {
        const base = bases[(i + attempt) % bases.length]!;
        try {
          const response = await fetch(`${base}/api/v1/messages?mailbox_id=${run.account.mailboxId}&limit=5`, {
            headers: { authorization: `Bearer ${run.account.apiKey}` },
          });
          await response.arrayBuffer();
          if (response.status === 200) ok++;
          else errors++;
          break;
        } catch {
          failedOver++;
        }
      }
      await Bun.sleep(20);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      if (errors > 0) run.fail(`${errors} HTTP reads answered other than 200`);
      return `HTTP reads over both APIs: ${ok} ok, ${failedOver} failed over to the other copy, ${errors} errors`;
    },
  };
}

/** The same send (same client_id) posted to both APIs at once: one message, one answer. */
async function racingClientId(bases: string[], run: Run): Promise<string> {
  const body = JSON.stringify({
    mailbox_id: run.account.mailboxId,
    to: "someone@example.net",
    subject: "copies race",
    text: "Sent once.",
    client_id: "copies-race-1",
  });
  const answers = await Promise.all(
    bases.map(async (base) => {
      const response = await fetch(`${base}/api/v1/send`, {
        method: "POST",
        headers: { authorization: `Bearer ${run.account.apiKey}`, "content-type": "application/json" },
        body,
      });
      return { status: response.status, body: (await response.json()) as { id?: string } };
    }),
  );
  const [row] = await run.sql`select count(*)::int as n from messages where direction = 'out' and subject = 'copies race'`;
  const ids = new Set(answers.filter((a) => a.status === 201 || a.status === 200).map((a) => a.body.id));
  // The loser of the race may be told the first is still in progress (409); never a second send.
  if (row!.n !== 1 || ids.size !== 1 || answers.some((a) => ![200, 201, 409].includes(a.status))) {
    run.fail(`client_id race: ${row!.n} sends stored, answers ${answers.map((a) => `${a.status} ${a.body.id ?? ""}`).join(", ")}`);
  }
  return `same client_id to both APIs at once: ${row!.n} send (answers ${answers.map((a) => a.status).join(" and ")})`;
}

/**
 * The retried pair: one client_id sent through both APIs at the instant api-a is SIGKILLed, then
 * retried through api-b until it has a final answer (at most 60 s): 200/201 only if exactly one
 * copy reached the outside (the local transport's outbox), and never a second copy whatever the answer.
 */
async function retriedPairAtKill(bases: string[], run: Run, kill: () => Promise<void>): Promise<string> {
  const to = `pair-${run.account.id.toLowerCase()}@example.net`;
  const body = JSON.stringify({
    mailbox_id: run.account.mailboxId,
    to,
    subject: "copies retried pair",
    text: "Once.",
    client_id: "copies-pair-1",
  });
  const post = (base: string) =>
    fetch(`${base}/api/v1/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${run.account.apiKey}`, "content-type": "application/json" },
      body,
    }).then(
      async (response) => ({ status: response.status, body: (await response.json()) as { id?: string; code?: string } }),
      (error: Error) => ({ status: 0, body: { code: error.message } }),
    );
  const first = bases.map(post);
  // Somewhere in the requests' first milliseconds: before, during or after api-a's delivery.
  await Bun.sleep(Math.random() * 30);
  await kill();
  const firstAnswers = await Promise.all(first);
  const started = performance.now();
  let final = { status: 409, body: {} as { id?: string; code?: string } };
  while (final.status === 409 && performance.now() - started < 60_000) {
    final = await post(bases[1]!);
    if (final.status === 409) await Bun.sleep(500);
  }
  const waited = ((performance.now() - started) / 1000).toFixed(1);
  const [row] = await run.sql`select count(*)::int as n from local_outbox where rcpt_to = ${to}`;
  const copies = row!.n;
  const saysSent = final.status === 200 || final.status === 201;
  const unknown = final.status === 502 && final.body.code === "delivery_outcome_unknown";
  if (final.status === 409) run.fail(`retried pair: still 409 after ${waited} s`);
  else if (saysSent ? copies !== 1 : copies > 1 || !unknown) {
    run.fail(`retried pair: answer ${final.status} ${final.body.code ?? ""} with ${copies} copies in the outbox`);
  }
  return `retried pair at api-a's kill: first answers ${firstAnswers.map((a) => a.status).join(" and ")}, final ${final.status}${unknown ? " delivery_outcome_unknown" : ""} after ${waited} s, ${copies} copy in the outbox`;
}

/** Five wrong passwords spread over both APIs exhaust the per-(email, client) limit on both. */
async function throttleAcrossCopies(bases: string[], run: Run): Promise<string> {
  const email = `operator-${run.account.id.toLowerCase()}@example.org`;
  await createUser(run.sql, { accountId: run.account.id, email, password: "the-right-password-1234" });
  const attempt = async (base: string, password: string) => {
    const client = new DashboardClient(base);
    const form = await client.get("/dashboard/login");
    return (await client.post("/dashboard/login", { login_token: hiddenField(form.text, "login_token"), email, password })).status;
  };
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push(await attempt(bases[i % 2]!, `wrong-password-${i}`));
  // Even the right password is refused now, on either copy: the count lives in PostgreSQL.
  const after = [await attempt(bases[0]!, "the-right-password-1234"), await attempt(bases[1]!, "the-right-password-1234")];
  if (statuses.includes(429) || after.some((status) => status !== 429))
    run.fail(`sign-in throttle across copies: ${statuses.join(",")} then ${after.join(",")}`);
  return `sign-in throttle: 5 failures over both APIs, then ${after.join(" and ")} on each`;
}

// The APIs' per-key limit in this scenario: low enough that a short flood crosses it, well above
// the reads the scenario's own key makes (about 50 a second over both copies).
const RATE = 200;
const BURST = 200;

/** A fresh key flooding both APIs for two seconds gets burst + rate × t + one chunk per copy, not twice that. */
async function rateLimitAcrossCopies(bases: string[], run: Run): Promise<string> {
  const { secret } = await createKey(run.sql, { accountId: run.account.id, scope: "api" });
  const ok = bases.map(() => 0);
  let limited = 0;
  let other = 0;
  const started = performance.now();
  await Promise.all(
    bases.flatMap((base, i) =>
      Array.from({ length: 4 }, async () => {
        while (performance.now() - started < 2000) {
          const response = await fetch(`${base}/api/v1/mailboxes`, { headers: { authorization: `Bearer ${secret}` } });
          await response.arrayBuffer();
          if (response.status === 200) ok[i]!++;
          else if (response.status === 429 && /^[1-9]\d*$/.test(response.headers.get("retry-after") ?? "")) limited++;
          else other++;
        }
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const admitted = ok.reduce((a, b) => a + b, 0);
  const bound = Math.floor(BURST + RATE * seconds + bases.length * leaseChunk({ perSecond: RATE, burst: BURST }));
  // A flood that never reached the limit (a loaded machine makes few requests in two seconds)
  // exercises nothing: noted, not failed. Over the bound, or any other answer, is a failure.
  if (admitted > bound || other > 0) {
    run.fail(`rate limit across copies: ${admitted} admitted (bound ${bound}), ${limited} limited, ${other} other answers`);
  }
  if (limited === 0) {
    return `rate limit across copies: not reached, the flood made only ${admitted} requests in ${seconds.toFixed(1)} s (≤ ${bound} allowed; machine load)`;
  }
  return `rate limit across copies: one key flooding both APIs ${seconds.toFixed(1)} s at ${RATE}/s, burst ${BURST}: ${admitted} admitted (${ok.join(" + ")}) ≤ ${bound}, ${limited} answered 429`;
}

export const copies: Scenario = {
  async run(run, options) {
    const [httpA, httpB, smtpB] = [await run.freePort(), await run.freePort(), await run.freePort()];
    const env = { DELIVERY_TRANSPORT: "local", RATE_LIMIT_PER_SECOND: String(RATE), RATE_LIMIT_BURST: String(BURST) };
    const apiA = await run.start("api-a", { ...env, ROLES: "api", HTTP_PORT: String(httpA) });
    await run.start("api-b", { ...env, ROLES: "api", HTTP_PORT: String(httpB) });
    const smtpA = await run.start("smtp-a", { ...env, ROLES: "smtp", SMTP_PORT: String(run.smtpPort) });
    await run.start("smtp-b", { ...env, ROLES: "smtp", SMTP_PORT: String(smtpB) });
    const workerA = await run.start("worker-a", { ...env, ROLES: "worker" });
    const workerB = await run.start("worker-b", { ...env, ROLES: "worker" });
    const bases = [`http://127.0.0.1:${httpA}`, `http://127.0.0.1:${httpB}`];

    // The stream client sits on api-b, which survives; events come from the workers and from api-a.
    const stream = streamSubjects(bases[1]!, run.account.apiKey);
    const reads = httpLoad(bases, run);
    const load = run.load([run.smtpPort, smtpB]);
    await run.at(0.1);
    run.notes.push(await racingClientId(bases, run));
    run.notes.push(await throttleAcrossCopies(bases, run));
    run.notes.push(await rateLimitAcrossCopies(bases, run));
    // Mail sent through api-a to the run's own mailbox (local transport) must reach the stream on api-b.
    const crossSubject = "copies through api-a";
    const sent = await fetch(`${bases[0]}/api/v1/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${run.account.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        mailbox_id: run.account.mailboxId,
        to: run.account.mailboxAddress,
        subject: crossSubject,
        text: "Across copies.",
      }),
    });
    if (sent.status !== 201) run.fail(`send through api-a answered ${sent.status}`);

    await run.at(0.5);
    // The pair is posted to both APIs, then api-a, smtp-a and worker-a are killed at once.
    const pair = retriedPairAtKill(bases, run, async () => {
      await Promise.all([apiA, smtpA, workerA].map((victim) => victim.kill("SIGKILL")));
    });
    await load.done;
    run.notes.push("SIGKILL of api-a, smtp-a and worker-a at mid-load (not restarted)");
    run.notes.push(await pair);
    run.notes.push(await reads.stop());

    // Every acknowledged message's event, and the api-a send's, on api-b's stream.
    const wanted = [...load.messages.filter((m) => m.ackedAt !== null).map((m) => m.subject), crossSubject];
    const until = performance.now() + (options.fast ? 30_000 : 75_000);
    while (wanted.some((subject) => !stream.subjects.has(subject)) && performance.now() < until) await Bun.sleep(100);
    stream.close();
    const missing = wanted.filter((subject) => !stream.subjects.has(subject));
    if (missing.length > 0) run.fail(`${missing.length} events never reached the stream on api-b (${missing.slice(0, 3).join(", ")})`);
    run.notes.push(`stream on api-b: ${wanted.length - missing.length} of ${wanted.length} events, the api-a send's included`);
    run.notes.push(overlappingRuns([workerA, workerB], run));
  },
};
