// How long each step of taking in a large message holds the event loop, the way it was done before
// and the way it is done now, side by side in one process on one database: the longest gap a 2 ms
// timer saw while the step ran, and the step's wall time. Alternated, `--rounds` times; medians.
//
//   npm run bench -- loop-gaps [--megabytes 20] [--rounds 3]
//
// Steps: both digests of the raw message (two whole SHA-256 calls / one sliced pass); the bytes
// into the database (one statement with the whole hex as a parameter / staged slices, then a
// statement that assembles them); the bytes out of it (one select of the bytea / a slice per
// statement); the SMTP line-length check (one pass at the end / chunk by chunk as the data comes).
import { createHash } from "node:crypto";
import { messageLimitCheck, messageLimitViolation } from "../smtp/limits.ts";
import { fullContent, smallContent } from "../src/core/bytea-slices.ts";
import { base64Of } from "../src/core/inbound/bytea-base64.ts";
import { contentValue, unstage } from "../src/core/inbound/staged-content.ts";
import { makeSql } from "../src/db.ts";
import { sha256HexInSlices } from "../src/sha256-in-slices.ts";
import { createTestDatabase } from "../test/support/database.ts";

type Step = { name: string; before: () => Promise<unknown>; after: () => Promise<unknown> };

/** The longest event-loop gap while `work` runs, and its wall time, in ms. */
async function measure(work: () => Promise<unknown>): Promise<{ gap: number; wall: number }> {
  await Bun.sleep(20);
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last - 2);
    last = now;
  }, 2);
  const started = performance.now();
  await work();
  const wall = performance.now() - started;
  await Bun.sleep(10);
  clearInterval(timer);
  return { gap, wall };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export default async function loopGaps(args: string[]): Promise<void> {
  let megabytes = 20;
  let rounds = 3;
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === "--megabytes" && /^\d+$/.test(args[i + 1] ?? "")) megabytes = Number(args[i + 1]);
    else if (args[i] === "--rounds" && /^\d+$/.test(args[i + 1] ?? "")) rounds = Number(args[i + 1]);
    else throw new Error("usage: npm run bench -- loop-gaps [--megabytes N] [--rounds N]");
  }
  const database = await createTestDatabase();
  const sql = makeSql(database.url, { max: 4 });
  try {
    const raw = Buffer.alloc(megabytes * 1024 * 1024);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 31 + (i >> 10)) & 0xff;
    // Lines of 76 characters, as base64 in a message, in chunks as smtp-server hands them over.
    for (let i = 76; i < raw.length; i += 78) [raw[i], raw[i + 1]] = [13, 10];
    const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
    await sql`create table loop_gap_rows (id text primary key, content bytea)`;
    await sql`insert into loop_gap_rows (id, content) values ('read', ${raw})`;
    let n = 0;
    const steps: Step[] = [
      {
        name: "digests of the raw message (content + copy)",
        before: async () => [sha(raw), sha(raw.subarray(100))],
        after: () => sha256HexInSlices(raw, [0, 100]),
      },
      {
        name: "bytes into the database",
        before: async () => sql`insert into loop_gap_rows (id, content) values (${`w${n++}`}, decode(${base64Of(raw)}, 'base64'))`,
        after: async () => {
          const value = await contentValue(sql, raw);
          await sql`with ${unstage(sql, [value.stagedId!])} insert into loop_gap_rows (id, content) select ${`w${n++}`}, ${value.expression}`;
        },
      },
      {
        name: "bytes out of the database",
        before: () => sql`select content from loop_gap_rows where id = 'read'`,
        after: async () => {
          const [row] = await sql`select ${smallContent(sql, "content")} from loop_gap_rows where id = 'read'`;
          return fullContent(sql, "loop_gap_rows", "read", row as never);
        },
      },
      {
        name: "SMTP line check at the end of DATA",
        before: async () => messageLimitViolation(Buffer.concat(chunksOf(raw))),
        after: async () => {
          // The blocks are joined at the end, as the listener does.
          const check = messageLimitCheck();
          const chunks = chunksOf(raw);
          for (const chunk of chunks) {
            check.push(chunk);
            await new Promise((resolve) => setImmediate(resolve));
          }
          return [check.violation(), Buffer.concat(chunks).byteLength];
        },
      },
    ];
    console.log(
      `loop-gaps: ${megabytes} MB, ${rounds} rounds, load average ${(await import("node:os"))
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(" ")}`,
    );
    for (const step of steps) {
      const before: { gap: number; wall: number }[] = [];
      const after: { gap: number; wall: number }[] = [];
      for (let round = 0; round < rounds; round++) {
        before.push(await measure(step.before));
        after.push(await measure(step.after));
      }
      const show = (runs: { gap: number; wall: number }[]) =>
        `longest gap ${median(runs.map((r) => r.gap)).toFixed(1)} ms, wall ${median(runs.map((r) => r.wall)).toFixed(1)} ms`;
      console.log(`  ${step.name}: before ${show(before)}; now ${show(after)}`);
    }
  } finally {
    await sql.end();
    await database.drop();
  }
}

/** The message as smtp-server's data stream hands it over: 64 KiB at a time. */
function chunksOf(raw: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < raw.length; at += 65536) out.push(raw.subarray(at, at + 65536));
  return out;
}
