// SpamAssassin's spamd over the SPAMC protocol: the edge spam verdict for a raw message.
import { exchange } from "./socket-address.ts";

export type SpamdVerdict = { spam: boolean; score: number; threshold: number };

export async function checkWithSpamd(address: string, raw: Uint8Array, timeoutMs: number): Promise<SpamdVerdict> {
  const head = new TextEncoder().encode(`CHECK SPAMC/1.5\r\nContent-length: ${raw.length}\r\nUser: mailbox\r\n\r\n`);
  const reply = (await exchange(address, [head, raw], timeoutMs)).toString("utf8");
  const status = /^SPAMD\/[\d.]+\s+(\d+)\s+(\S+)/.exec(reply);
  if (status?.[1] !== "0") throw new Error(`spamd: ${reply.split("\r\n")[0] || "empty reply"}`);
  const verdict = /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/im.exec(reply);
  if (!verdict) throw new Error("spamd: reply without a Spam header");
  return { spam: /^(true|yes)$/i.test(verdict[1]!), score: Number(verdict[2]), threshold: Number(verdict[3]) };
}
