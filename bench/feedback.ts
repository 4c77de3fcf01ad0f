// Per-account learning replayed: one account's mail stream with the corrections its people make,
// and a second account receiving the same mail with none. A fresh database; the stream is
// test/fixtures/feedback/stream.ts (ordinary mail of six kinds and one kind of unwanted
// graymail no global model can call spam: a vendor's webinar invitations). The account corrects
// its mail as it reads it, in stream order: `spam` on unwanted mail that was not flagged,
// `not_spam` on wanted mail that was. At each checkpoint of N corrections the same evaluation
// window (fresh messages never used for training) is delivered to both accounts through the real
// screening and its error rate measured: unwanted mail not flagged plus wanted mail flagged.
//
// The account stops correcting when it reaches a checkpoint or has read --stream messages; a
// checkpoint it cannot reach (the stream had no more errors to correct) is reported as such.
//
// --corpus spamassassin replays real mail instead: the SpamAssassin public corpus's easy-ham-2
// (mailing-list discussion) as the mail the account wants and hard-ham-1 (commercial newsletters
// and promotions, ham to the corpus) as the graymail it does not; window and stream are disjoint
// halves, shuffled by the seed. Each delivery gets a fresh Message-ID (the same bytes twice would
// be one message).
//
//   bun run bench feedback [--window 60] [--checkpoints 0,1,2,3,6,12] [--seed 11] [--stream 400]
//     [--corpus generated|spamassassin]
import { acceptInbound } from "../src/core/inbound/store.ts";
import type { Principal } from "../src/core/principal.ts";
import { giveFeedback } from "../src/core/screening/feedback.ts";
import { screenMessage } from "../src/core/screening/screen.ts";
import { mailStream, type StreamMessage, toRaw } from "../test/fixtures/feedback/stream.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../test/support/context.ts";
import { mailboxRow } from "../test/support/mailbox-row.ts";

type Options = { window: number; checkpoints: number[]; seed: number; stream: number; corpus: "generated" | "spamassassin" };

function parseOptions(args: string[]): Options {
  const options: Options = { window: 60, checkpoints: [0, 1, 2, 3, 6, 12], seed: 11, stream: 400, corpus: "generated" };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1] ?? ""];
    if (flag === "--window" && /^\d+$/.test(value)) options.window = Number(value);
    else if (flag === "--seed" && /^\d+$/.test(value)) options.seed = Number(value);
    else if (flag === "--stream" && /^\d+$/.test(value)) options.stream = Number(value);
    else if (flag === "--corpus" && (value === "generated" || value === "spamassassin")) options.corpus = value;
    else if (flag === "--checkpoints" && /^\d+(,\d+)*$/.test(value)) options.checkpoints = value.split(",").map(Number);
    else throw new Error(`usage: bun run bench feedback [--window N] [--checkpoints 0,3,6,12] [--seed N]; bad argument ${flag}`);
  }
  return options;
}

type Box = { id: string; address: string; principal: Principal };
type Replayed = { label: "unwanted" | "wanted"; raw: (to: string) => Uint8Array };

const generated = (m: StreamMessage): Replayed => ({ label: m.label, raw: (to) => toRaw(m, to) });

/** The corpus message with a fresh Message-ID, so each delivery is a message of its own. */
function corpusMessage(raw: Uint8Array, label: Replayed["label"]): Replayed {
  const text = new TextDecoder("latin1").decode(raw);
  return {
    label,
    raw: () => {
      const id = `<${crypto.randomUUID()}@replay.example>`;
      const rewritten = /^message-id:/im.test(text)
        ? text.replace(/^message-id:.*$/im, `Message-ID: ${id}`)
        : `Message-ID: ${id}\r\n${text}`;
      return Uint8Array.from(rewritten, (ch) => ch.charCodeAt(0) & 0xff);
    },
  };
}

function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function replaySets(options: Options): Promise<{ window: Replayed[]; training: Replayed[] }> {
  if (options.corpus === "generated")
    return {
      window: mailStream(options.seed + 1000, options.window).map(generated),
      training: mailStream(options.seed, options.stream).map(generated),
    };
  const { loadCorpus } = await import("../scripts/train-spam.ts");
  const wanted = shuffled(await loadCorpus(["easy-ham-2"]), options.seed).map((m) => corpusMessage(m.raw, "wanted"));
  const unwanted = shuffled(await loadCorpus(["hard-ham-1"]), options.seed).map((m) => corpusMessage(m.raw, "unwanted"));
  const take = (xs: Replayed[], n: number) => xs.splice(0, n);
  const windowUnwanted = Math.round(options.window / 3);
  const window = shuffled([...take(unwanted, windowUnwanted), ...take(wanted, options.window - windowUnwanted)], options.seed + 1);
  const streamUnwanted = Math.round(options.stream / 3);
  const training = shuffled([...take(unwanted, streamUnwanted), ...take(wanted, options.stream - streamUnwanted)], options.seed + 2);
  return { window, training };
}

async function deliver(ctx: TestContext, box: Box, message: Replayed): Promise<{ id: string; flagged: boolean }> {
  const [id] = await acceptInbound(ctx.svc, message.raw(box.address), [(await mailboxRow(ctx, box.id))!], {
    remoteIp: null,
    helo: null,
    mailFrom: null,
  });
  await screenMessage(ctx.svc, id!);
  const [row] = await ctx.sql`select spam_risk from messages where id = ${id}`;
  return { id: id!, flagged: row!.spam_risk === "high" };
}

type Score = { errors: number; missed: number; wrongly: number; total: number };

async function evaluate(ctx: TestContext, box: Box, window: Replayed[]): Promise<Score> {
  const score: Score = { errors: 0, missed: 0, wrongly: 0, total: window.length };
  for (const message of window) {
    const { flagged } = await deliver(ctx, box, message);
    if (message.label === "unwanted" && !flagged) score.missed++;
    if (message.label === "wanted" && flagged) score.wrongly++;
  }
  score.errors = score.missed + score.wrongly;
  return score;
}

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const ctx = await makeTestContext();
  try {
    const boxes: Box[] = [];
    for (const slug of ["learner", "bystander"]) {
      const fixture = await makeAccount(ctx);
      const mailbox = await makeMailbox(ctx, fixture, slug);
      boxes.push({
        ...mailbox,
        principal: {
          keyId: fixture.keyId,
          accountId: fixture.accountId,
          plan: "free",
          scope: "api",
          mailboxId: null,
          canRead: true,
          canSend: true,
        },
      });
    }
    const [learner, bystander] = boxes as [Box, Box];
    const { window, training } = await replaySets(options);
    const unwantedInWindow = window.filter((m) => m.label === "unwanted").length;
    console.log(
      `feedback replay (${options.corpus}): evaluation window ${window.length} messages (${unwantedInWindow} unwanted, ${window.length - unwantedInWindow} wanted), stream ${training.length}, seed ${options.seed}`,
    );
    console.log(
      "corrections (spam/not_spam)  stream read  learner errors (missed, wrongly flagged)  bystander errors (missed, wrongly flagged)",
    );
    let corrections = 0;
    let spam = 0;
    let ham = 0;
    let read = 0;
    const started = performance.now();
    for (const checkpoint of [...options.checkpoints].sort((a, b) => a - b)) {
      if (corrections < checkpoint && read >= training.length) {
        console.log(`${String(checkpoint).padStart(4)}: not reached, no more errors to correct in ${read} messages of the stream`);
        continue;
      }
      while (corrections < checkpoint && read < training.length) {
        const message = training[read++]!;
        const { id, flagged } = await deliver(ctx, learner, message);
        const verdict = message.label === "unwanted" && !flagged ? "spam" : message.label === "wanted" && flagged ? "not_spam" : null;
        if (!verdict) continue;
        await giveFeedback(ctx.sql, learner.principal, id, verdict, { source: "api", actor: learner.principal.keyId });
        corrections++;
        if (verdict === "spam") spam++;
        else ham++;
      }
      const [mine, theirs] = [await evaluate(ctx, learner, window), await evaluate(ctx, bystander, window)];
      const rate = (s: Score) => `${((100 * s.errors) / s.total).toFixed(1)}% (${s.missed}, ${s.wrongly})`;
      console.log(
        `${String(corrections).padStart(4)} (${spam}/${ham})`.padEnd(29) +
          `${String(read).padStart(5)}        ${rate(mine).padEnd(42)}${rate(theirs)}`,
      );
    }
    console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await ctx.close();
  }
}
