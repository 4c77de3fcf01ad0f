// The six attachment bombs over SMTP into the running service (`src/main.ts`, all roles, in a child
// process against a fresh database), while `/readyz` is asked every 10 ms from a process of its
// own: how long the service kept its event loop from answering, and how much memory it and its
// children took over idle. Each run starts a fresh service and waits until every bomb is screened.
//
//   npm run bench -- bombs [--runs 3] [--at-once] [--interval 10] [--stall-ms 40] [--profile DIR]
//                          [--compare DIR] [--control MS]
//
// Per run: the load average before and after; /readyz probes, p50, p99 and max latency, how many
// took over 100 ms or failed, and when the slowest were answered; what became of each attachment;
// peak resident memory of the service and all its children over idle; the service's own event-loop
// stalls (EVENT_LOOP_STALL_LOG_MS, each with its time from the first send), so that a slow probe
// can be set beside the stall that held it, or found to have none. --at-once sends the six together (default: one after another, as the test does).
// --profile DIR runs the service under `bun --cpu-prof` and names, for each stall, the functions
// the profile caught inside it (where the loop was held); the profile adds its own overhead.
// --compare DIR alternates each run with one of the service in DIR, another checkout of this
// repository (with node_modules), e.g. the commit before a change: before and after side by side.
// --control MS first probes the same service for MS with no mail arriving and reports those probes
// apart: what the machine's load alone does to /readyz at that moment, the baseline for the rest.
import { mkdirSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import MailComposer from "nodemailer/lib/mail-composer";
import { makeSql } from "../src/db.ts";
import { attachmentBombs } from "../test/support/attachment-bombs.ts";
import { percentile, treeRss } from "../test/support/process-tree.ts";
import { deliverRaw } from "../test/support/smtp-client.ts";
import { startBenchService } from "./stream-service.ts";
import { backendCpu, cpuBetween } from "./support/cpu.ts";
import { cpuOf, cpuOfTree } from "./support/process-cpu.ts";
import { culprits } from "./support/profile-stalls.ts";

const MB = 1024 * 1024;
const USAGE =
  "usage: npm run bench -- bombs [--runs N] [--at-once] [--interval MS] [--stall-ms MS] [--profile DIR] [--compare DIR] [--control MS]";

type Options = {
  runs: number;
  atOnce: boolean;
  intervalMs: number;
  stallMs: number;
  profileDir: string | null;
  compare: string | null;
  controlMs: number;
};
type Stall = { ms: number; cpuMs: number; endedAt: number };

function parse(args: string[]): Options {
  const options: Options = { runs: 1, atOnce: false, intervalMs: 10, stallMs: 40, profileDir: null, compare: null, controlMs: 0 };
  for (let i = 0; i < args.length; i++) {
    const [flag, value] = [args[i], args[i + 1] ?? ""];
    if (flag === "--at-once") options.atOnce = true;
    else if (flag === "--runs" && /^\d+$/.test(value)) [options.runs, i] = [Number(value), i + 1];
    else if (flag === "--interval" && /^\d+$/.test(value)) [options.intervalMs, i] = [Number(value), i + 1];
    else if (flag === "--stall-ms" && /^\d+$/.test(value)) [options.stallMs, i] = [Number(value), i + 1];
    else if (flag === "--profile" && value) [options.profileDir, i] = [resolve(value), i + 1];
    else if (flag === "--compare" && value) [options.compare, i] = [resolve(value), i + 1];
    else if (flag === "--control" && /^\d+$/.test(value)) [options.controlMs, i] = [Number(value), i + 1];
    else throw new Error(`${USAGE}; bad argument ${flag}`);
  }
  return options;
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");

/** The service's event_loop.stall lines, read from its JSON log. */
function stallReader(stalls: Stall[]) {
  return (stream: ReadableStream<Uint8Array>) => {
    void (async () => {
      const decoder = new TextDecoder();
      let rest = "";
      for await (const chunk of stream) {
        const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) {
          if (!line.includes('"event_loop.stall"')) continue;
          try {
            const { stall_ms, cpu_ms, ended_at_ms } = JSON.parse(line) as { stall_ms: number; cpu_ms: number; ended_at_ms: number };
            stalls.push({ ms: stall_ms, cpuMs: cpu_ms, endedAt: ended_at_ms });
          } catch {
            // not a log line
          }
        }
      }
    })();
  };
}

async function composeBombs(to: string): Promise<{ name: string; raw: Buffer }[]> {
  const out: { name: string; raw: Buffer }[] = [];
  for (const bomb of attachmentBombs) {
    const raw = await new MailComposer({
      from: "mallory@example.org",
      to,
      subject: `bomb: ${bomb.filename}`,
      text: "Please see the attachment.",
      attachments: [{ filename: bomb.filename, contentType: bomb.contentType, content: Buffer.from(await bomb.content()) }],
    })
      .compile()
      .build();
    out.push({ name: bomb.filename, raw });
  }
  return out;
}

async function run(options: Options, index: number, checkout: string | null): Promise<void> {
  const stalls: Stall[] = [];
  const name = checkout ? `${index} (${checkout})` : String(index);
  const profileDir = options.profileDir ? join(options.profileDir, `run-${index}${checkout ? "-compared" : ""}`) : null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const service = await startBenchService(
    { LOG_LEVEL: "warn", EVENT_LOOP_STALL_LOG_MS: String(options.stallMs) },
    {
      runtimeArgs: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
      onStdout: stallReader(stalls),
      ...(checkout ? { checkout } : {}),
    },
  );
  const sql = makeSql(service.databaseUrl, { max: 2 });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await sql.end();
    await service.stop();
  };
  try {
    const base = `http://127.0.0.1:${service.httpPort}`;
    const headers = { authorization: `Bearer ${service.key}`, "content-type": "application/json" };
    const inbox = (await (
      await fetch(`${base}/api/v1/mailboxes`, { method: "POST", headers, body: JSON.stringify({ slug: "bombs" }) })
    ).json()) as { address: string };
    // Built before any probe: composing 20 MB messages is this process's work, not the service's.
    const messages = await composeBombs(inbox.address);
    const bytes = messages.reduce((sum, message) => sum + message.raw.byteLength, 0);

    // Idle: after start-up settled, the largest of a few samples.
    await Bun.sleep(2_000);
    let idle = 0;
    for (let i = 0; i < 5; i++, await Bun.sleep(100)) idle = Math.max(idle, treeRss(service.pid));
    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, treeRss(service.pid));
        await Bun.sleep(50);
      }
    })();
    const prober = Bun.spawn(
      [process.execPath, join(import.meta.dir, "support/readyz-probe.ts"), `${base}/readyz`, String(options.intervalMs)],
      {
        stdout: "pipe",
        stderr: "inherit",
      },
    );
    const probeOutput = new Response(prober.stdout).text();
    const controlFrom = Date.now();
    if (options.controlMs > 0) await Bun.sleep(options.controlMs);
    const controlTo = Date.now();
    const loadBefore = load();
    await Bun.sleep(500);
    // Where the CPU goes, whatever the machine's load does to the wall clock: the service, the
    // extraction processes it started (reaped children), its database's backends.
    const cpuBefore = { tree: cpuOfTree(service.pid), own: cpuOf([service.pid]), backends: await backendCpu(sql) };

    const started = Date.now();
    const send = async (message: { name: string; raw: Buffer }) => {
      const reply = await deliverRaw(service.smtpPort, { from: "mallory@example.org", to: [inbox.address] }, message.raw);
      if (reply.data?.code !== 250) throw new Error(`${message.name}: ${reply.data?.code} ${reply.data?.text}`);
    };
    if (options.atOnce) await Promise.all(messages.map(send));
    else for (const message of messages) await send(message);
    const accepted = Date.now();
    for (let waited = 0; ; waited += 100) {
      const [{ pending }] = await sql`select count(*)::int as pending from messages where processed_at is null`;
      if (pending === 0) break;
      if (waited > 120_000) throw new Error(`${pending} bombs still unscreened after two minutes`);
      await Bun.sleep(100);
    }
    const screened = Date.now();
    const cpuAfter = { tree: cpuOfTree(service.pid), own: cpuOf([service.pid]), backends: await backendCpu(sql) };
    await Bun.sleep(300);
    sampling = false;
    prober.kill("SIGTERM");
    await Promise.all([sampler, prober.exited]);
    const loadAfter = load();

    const all = (await probeOutput)
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(" ").map(Number) as [number, number, number]);
    const probes = all.filter(([at]) => at >= controlTo);
    const times = probes.map(([, ms]) => ms).sort((a, b) => a - b);
    // When the slowest probes were answered (from the first send), to set beside the stalls below.
    const slow = [...probes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([at, ms]) => `${ms.toFixed(0)} ms @ ${((at + ms - started) / 1000).toFixed(2)} s`);
    const failed = probes.filter(([, , status]) => status !== 200).length;
    const [statuses] = await sql`
      select count(*)::int as messages, count(*) filter (where comprehension->>'status' = 'partial')::int as partial from messages`;
    console.log(
      `run ${name}: load ${loadBefore} → ${loadAfter}; ${messages.length} bombs (${(bytes / MB).toFixed(1)} MB) ` +
        `${options.atOnce ? "at once" : "one after another"}, all 250 in ${((accepted - started) / 1000).toFixed(1)} s, ` +
        `screened ${((screened - started) / 1000).toFixed(1)} s after the first (${statuses!.messages} stored, ${statuses!.partial} partial)`,
    );
    console.log(
      `  /readyz: ${times.length} probes, p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms, ` +
        `max ${(times.at(-1) ?? NaN).toFixed(1)} ms; ${times.filter((ms) => ms > 100).length} over 100 ms; ${failed} not 200`,
    );
    console.log(`    slowest (answered @ from the first send): ${slow.join(", ")}`);
    if (options.controlMs > 0) {
      const control = all
        .filter(([at]) => at >= controlFrom && at < controlTo)
        .map(([, ms]) => ms)
        .sort((a, b) => a - b);
      console.log(
        `  /readyz before the first send, no mail arriving (control, ${(options.controlMs / 1000).toFixed(1)} s): ${control.length} probes, ` +
          `p50 ${percentile(control, 0.5).toFixed(1)} ms, p99 ${percentile(control, 0.99).toFixed(1)} ms, max ${(control.at(-1) ?? NaN).toFixed(1)} ms; ` +
          `${control.filter((ms) => ms > 100).length} over 100 ms`,
      );
    }
    const attachments = await sql<{ filename: string; text_status: string; text_error: string | null }[]>`
      select filename, text_status, text_error from attachments order by filename`;
    console.log(
      `  attachments: ${attachments.map((a) => `${a.filename} ${a.text_status}${a.text_error ? ` (${a.text_error})` : ""}`).join("; ")}`,
    );
    const ownCpu = cpuAfter.own - cpuBefore.own;
    console.log(
      `  CPU from the first send to the last verdict: service ${ownCpu.toFixed(2)} s, its extraction processes ` +
        `${(cpuAfter.tree - cpuBefore.tree - ownCpu).toFixed(2)} s, its database's backends ${cpuBetween(cpuBefore.backends, cpuAfter.backends).toFixed(2)} s`,
    );
    console.log(`  memory: service and children peak ${Math.round((peak - idle) / MB)} MB over idle (idle ${Math.round(idle / MB)} MB)`);
    const during = stalls.filter((stall) => stall.endedAt >= started);
    const at = (stall: Stall) => `${stall.ms}/${stall.cpuMs} ms @ ${((stall.endedAt - started) / 1000).toFixed(2)} s`;
    // Longest first, and those the process itself spent the most CPU in (on a busy machine a
    // stall is mostly waiting for a core; the CPU part is this process's own work, or its GC).
    const longest = [...during].sort((a, b) => b.ms - a.ms).slice(0, 10);
    const busiest = [...during].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 10);
    // A checkout from before the stall log has none to report.
    if (!checkout || during.length > 0)
      console.log(
        `  event-loop stalls ≥ ${options.stallMs} ms: ${during.length}, ${during.reduce((sum, stall) => sum + stall.ms, 0)} ms in all, ` +
          `${during.reduce((sum, stall) => sum + stall.cpuMs, 0)} ms of process CPU in them (length/CPU @ end, from the first send)`,
      );
    if (during.length > 0) {
      console.log(`    longest: ${longest.map(at).join(", ")}`);
      console.log(`    most CPU: ${busiest.map(at).join(", ")}`);
    }
    if (profileDir) {
      // The profile is written when the service exits.
      await stop();
      const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
      if (!file) console.log("  (no CPU profile written)");
      else {
        const windows = busiest.map((stall) => ({ fromMs: stall.endedAt - stall.ms, toMs: stall.endedAt }));
        culprits(join(profileDir, file), windows).forEach((list, i) => {
          console.log(`  stall ${at(busiest[i]!)}:`);
          for (const culprit of list) console.log(`    ${String(culprit.ms).padStart(5)} ms  ${culprit.where}`);
        });
        console.log(`  profile: ${join(profileDir, file)}`);
      }
    }
  } finally {
    await stop();
  }
}

export default async function bombs(args: string[]): Promise<void> {
  const options = parse(args);
  for (let index = 1; index <= options.runs; index++) {
    if (options.compare) await run(options, index, options.compare);
    await run(options, index, null);
  }
}
