// DKIM signing of one ordinary outbound message: nodemailer's signer (what the send path used
// before 2026-11-25) against src/mail/dkim-sign.ts (key imported once; its RSA through OpenSSL on
// a thread, Web Crypto where that cannot run), side by side in one process, interleaved in rounds;
// composing the message with nodemailer's MailComposer for scale. CPU (all threads) and wall time
// per message.
//
//   npm run bench -- dkim [--rounds 5] [--messages 200]
import DKIM from "nodemailer/lib/dkim";
import { composeUnsigned, signMessage } from "../src/mail/compose.ts";
import { generateDkimKeyPair } from "../src/mail/dkim-keys.ts";

const TEXT = "Hello,\n\nthis is a benchmark message of ordinary length, one paragraph of plain text.\n\nRegards,\nthe bench\n";
// The header list compose.ts signs.
const SIGNED =
  "From:Sender:Reply-To:To:Cc:Subject:Date:Message-ID:In-Reply-To:References:MIME-Version:Content-Type:Content-Transfer-Encoding:List-Unsubscribe:List-Unsubscribe-Post";

function parseOptions(args: string[]): { rounds: number; messages: number } {
  const options = { rounds: 5, messages: 200 };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if ((flag === "--rounds" || flag === "--messages") && value && /^\d+$/.test(value) && Number(value) > 0) {
      options[flag.slice(2) as "rounds" | "messages"] = Number(value);
    } else {
      throw new Error(`usage: npm run bench -- dkim [--rounds N] [--messages N]; bad argument ${flag}`);
    }
  }
  return options;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export default async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const keys = await generateDkimKeyPair();
  const key = { domainName: "agents.example", keySelector: "s1", privateKey: keys.privateKeyPem };
  const input = {
    from: "agent@agents.example",
    to: "reader@example.org",
    subject: "Bench",
    text: TEXT,
    messageId: "msg_1@agents.example",
    unsubscribe: { url: "https://mail.agents.example/unsubscribe/abcdefabcdefabcdefabcdefabcdefab", mailto: "mailto:u@agents.example" },
  };
  const unsigned = await composeUnsigned(input);
  const nodemailerSign = async () => {
    const signer = new DKIM({ ...key, headerFieldNames: SIGNED });
    const chunks: Buffer[] = [];
    for await (const chunk of signer.sign(Buffer.from(unsigned))) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const targets: [string, () => Promise<unknown>][] = [
    ["compose (nodemailer MailComposer)", () => composeUnsigned(input)],
    ["sign: nodemailer DKIM", nodemailerSign],
    ["sign: ours (src/mail/dkim-sign.ts)", () => signMessage(unsigned, key)],
  ];
  // Warm-up: the JIT, and our signer's one key import.
  for (const [, op] of targets) for (let i = 0; i < 100; i++) await op();
  const totals = new Map(targets.map(([name]) => [name, { wall: 0, cpu: 0 }]));
  for (let round = 0; round < options.rounds; round++) {
    for (const [name, op] of targets) {
      const wall = performance.now();
      const cpu = cpuMs();
      for (let i = 0; i < options.messages; i++) await op();
      const entry = totals.get(name)!;
      entry.wall += performance.now() - wall;
      entry.cpu += cpuMs() - cpu;
    }
  }
  const n = options.rounds * options.messages;
  console.log(`\n${n} messages each, interleaved in ${options.rounds} rounds; ${unsigned.length} B message, RSA-2048.\n`);
  console.log(`${"target".padEnd(44)}${"CPU ms".padStart(10)}${"wall ms".padStart(10)}   (per message)`);
  for (const [name, e] of totals)
    console.log(`${name.padEnd(44)}${(e.cpu / n).toFixed(3).padStart(10)}${(e.wall / n).toFixed(3).padStart(10)}`);
  const old = totals.get("sign: nodemailer DKIM")!;
  const ours = totals.get("sign: ours (src/mail/dkim-sign.ts)")!;
  console.log(`\nours / nodemailer: CPU ${(ours.cpu / old.cpu).toFixed(2)}x, wall ${(ours.wall / old.wall).toFixed(2)}x\n`);
}

if (import.meta.main) {
  await run(process.argv.slice(2));
  process.exit(0);
}
