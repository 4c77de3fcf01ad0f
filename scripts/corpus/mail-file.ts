// The compact corpus format of test/fixtures/{spam,injection}-modern: many messages per .mail
// file, each opened by a meta line "=== <id> <label> <family> <language>", then RFC 822-style
// header lines, a blank line and the body. toRaw() adds the headers a real message carries
// (To, Date, Message-ID, MIME) so the message goes through the same parser as live mail.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type CorpusRecord = {
  id: string;
  label: string; // spam | ham | injection | benign
  family: string;
  language: string;
  headers: [string, string][];
  body: string;
  file: string;
};

export function parseMailFile(text: string, file = ""): CorpusRecord[] {
  const out: CorpusRecord[] = [];
  for (const chunk of text.split(/^=== /m).slice(1)) {
    const nl = chunk.indexOf("\n");
    const [id = "", label = "", family = "", language = ""] = chunk.slice(0, nl).trim().split(/\s+/);
    const rest = chunk.slice(nl + 1);
    const split = rest.search(/\n\s*\n/);
    const head = split < 0 ? rest : rest.slice(0, split);
    const body =
      split < 0
        ? ""
        : rest
            .slice(split)
            .replace(/^\s*\n/, "")
            .replace(/\s+$/, "");
    const headers: [string, string][] = [];
    for (const line of head.split("\n")) {
      const m = /^([A-Za-z-]+):\s?(.*)$/.exec(line);
      if (m) headers.push([m[1]!, m[2]!]);
    }
    out.push({ id, label, family, language, headers, body, file });
  }
  return out;
}

/** Every record of every .mail file under dir (recursively), in path order. */
export function loadMailDir(dir: string): CorpusRecord[] {
  const out: CorpusRecord[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith(".mail") || entry.name.endsWith(".jsonl")) {
        const text = readFileSync(p, "utf8");
        if (entry.name.endsWith(".jsonl")) {
          for (const line of text.split("\n")) if (line.trim()) out.push({ ...(JSON.parse(line) as CorpusRecord), file: p });
        } else out.push(...parseMailFile(text, p));
      }
    }
  };
  walk(dir);
  return out;
}

function encodeHeader(value: string): string {
  return /^[\x00-\x7f]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

function encodeAddressHeader(value: string): string {
  // "Name" <addr>: encode only the display name.
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(value);
  if (!m) return encodeHeader(value);
  const name = m[1]!.trim();
  return name ? `${encodeHeader(name.includes(",") || /^[\x20-\x7e]*$/.test(name) ? `"${name}"` : name)} <${m[2]}>` : `<${m[2]}>`;
}

/** The record as a raw RFC 822 message, as it would arrive; `date` fixes the Date header. */
export function toRaw(r: CorpusRecord, date = new Date("2026-05-13T09:30:00Z")): string {
  const has = (k: string) => r.headers.some(([h]) => h.toLowerCase() === k);
  const lines: string[] = [];
  const fromDomain = /@([^>\s]+)/.exec(r.headers.find(([h]) => h.toLowerCase() === "from")?.[1] ?? "")?.[1] ?? "example.com";
  for (const [k, v] of r.headers) {
    const lower = k.toLowerCase();
    if (lower === "content-type") continue;
    lines.push(`${k}: ${["from", "to", "reply-to", "cc"].includes(lower) ? encodeAddressHeader(v) : encodeHeader(v)}`);
  }
  if (!has("to")) lines.push("To: Sam Reyes <sam@inbox.example>");
  if (!has("date")) lines.push(`Date: ${date.toUTCString().replace("GMT", "+0000")}`);
  if (!has("message-id")) lines.push(`Message-ID: <${r.id}.${fnv(r.id + r.body).toString(36)}@${fromDomain}>`);
  const html = r.headers.some(([h, v]) => h.toLowerCase() === "content-type" && /html/i.test(v));
  lines.push("MIME-Version: 1.0");
  lines.push(`Content-Type: ${html ? "text/html" : "text/plain"}; charset=utf-8`);
  lines.push("Content-Transfer-Encoding: 8bit");
  return `${lines.join("\r\n")}\r\n\r\n${r.body.replace(/\r?\n/g, "\r\n")}\r\n`;
}

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
