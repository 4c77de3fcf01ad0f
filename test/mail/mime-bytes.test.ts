// The synchronous writer of a composed message (src/mail/mime-bytes.ts) against nodemailer's own
// stream build() of the same tree, byte for byte, for every kind of message compose.ts makes; and
// what it writes read back by mailparser, headers, bodies and attachments intact.
import { describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { simpleParser } from "mailparser";
import MailComposer from "nodemailer/lib/mail-composer";
import { type ComposeInput, composerFor, composeUnsigned } from "../../src/mail/compose.ts";
import { mimeBytes } from "../../src/mail/mime-bytes.ts";
import { BASE_COMPOSE_INPUT } from "../support/compose-input.ts";

const base: ComposeInput = {
  ...BASE_COMPOSE_INPUT,
  unsubscribe: { url: "https://mail.example.com/u/tok_abc", mailto: "unsubscribe+tok_abc@mail.example.com" },
  autoSubmitted: "auto-generated",
};

const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);

const cases: [string, ComposeInput][] = [
  ["plain ASCII text", base],
  ["a reply with References", { ...base, inReplyTo: "<parent@other.example>", references: ["root@other.example", "<mid@other.example>"] }],
  [
    "UTF-8 subject, display name and body (encoded words, quoted-printable)",
    {
      ...base,
      fromName: 'Zoë "Q" Brontë, Jr.',
      subject: "Grüße aus Köln — 日本語 ✓ ".repeat(4),
      text: "Ça marche très bien ✓\n".repeat(20),
    },
  ],
  ["a subject ending in spaces and a long unbroken word", { ...base, subject: `${"w".repeat(1100)}   ` }],
  [
    "lines past 76 and 998 octets, trailing whitespace, dots and From at line starts",
    { ...base, text: `${"x".repeat(80)}\n${"y".repeat(1200)}\ntrailing \t\n.dot\nFrom here\n..two\n` },
  ],
  ["CR, LF and CRLF mixed, no final line break", { ...base, text: "a\rb\nc\r\nd" }],
  ["mostly non-Latin text (base64 body)", { ...base, text: "日本語のテキスト。".repeat(40) }],
  ["an HTML alternative", { ...base, html: "<p>Hé <b>there</b></p>\n<p>second</p>" }],
  [
    "attachments: every byte value, a text file with bare CR and LF, a non-ASCII name, an empty file",
    {
      ...base,
      attachments: [
        { filename: "bytes.bin", contentType: "application/octet-stream", content: everyByte },
        { filename: "notes.txt", contentType: "text/plain", content: new TextEncoder().encode("a\r\nb\rc\nd") },
        {
          filename: "Überweisung März 2024 — ein sehr langer Dateiname.pdf",
          contentType: "application/pdf",
          content: everyByte.slice(0, 100),
        },
        { filename: "empty.dat", contentType: "application/octet-stream", content: new Uint8Array(0) },
      ],
    },
  ],
  [
    "an iMIP REPLY beside the text",
    { ...base, calendar: { method: "REPLY", content: "BEGIN:VCALENDAR\r\nMETHOD:REPLY\r\nEND:VCALENDAR\r\n" } },
  ],
  [
    "text, calendar and an attachment together",
    {
      ...base,
      calendar: { method: "REPLY", content: "BEGIN:VCALENDAR\nEND:VCALENDAR" },
      attachments: [{ filename: "a.bin", contentType: "application/octet-stream", content: everyByte }],
    },
  ],
];

describe("mimeBytes", () => {
  for (const [name, input] of cases) {
    test(`${name}: the same bytes as nodemailer's build()`, async () => {
      const root = composerFor(input).compile();
      const written = mimeBytes(root);
      expect(written).not.toBeNull();
      const built = await root.build();
      expect(written!.toString("latin1")).toBe(built.toString("latin1"));
    });
  }

  test("what compose.ts sends reads back: headers, bodies and attachments intact", async () => {
    const input = cases.find(([name]) => name.startsWith("attachments"))![1];
    const raw = await composeUnsigned({ ...input, html: "<p>Hé</p>", subject: "Grüße — ✓", text: `Ça ✓\n${"z".repeat(1200)}\n.dot\n` });
    const text = Buffer.from(raw).toString("latin1");
    // 7-bit headers, CRLF only, no line past RFC 5322's 998 octets.
    expect(text.split("\r\n\r\n")[0]).toMatch(/^[\x00-\x7f]*$/);
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    expect(Math.max(...text.split("\r\n").map((line) => line.length))).toBeLessThanOrEqual(998);

    const parsed = await simpleParser(Buffer.from(raw));
    expect(parsed.subject).toBe("Grüße — ✓");
    expect(parsed.from?.value[0]).toEqual({ name: "Support Bot", address: "agent-bot@mail.example.com" });
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value[0]?.address : null).toBe("alice@example.org");
    expect(parsed.messageId).toBe("<msg_123@mail.example.com>");
    expect(parsed.date?.toISOString()).toBe("2024-05-01T10:00:00.000Z");
    const line = (key: string) => parsed.headerLines.find((h) => h.key === key)?.line;
    expect(line("list-unsubscribe-post")).toBe("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    expect(parsed.headers.get("auto-submitted")).toBe("auto-generated");
    expect(parsed.text).toBe(`Ça ✓\n${"z".repeat(1200)}\n.dot\n`);
    expect(parsed.html).toContain("<p>Hé</p>");
    const files = parsed.attachments.map((a) => ({ name: a.filename, type: a.contentType, bytes: [...a.content] }));
    expect(files).toEqual([
      { name: "bytes.bin", type: "application/octet-stream", bytes: [...everyByte] },
      { name: "notes.txt", type: "text/plain", bytes: [...new TextEncoder().encode("a\r\nb\rc\nd")] },
      { name: "Überweisung März 2024 — ein sehr langer Dateiname.pdf", type: "application/pdf", bytes: [...everyByte.slice(0, 100)] },
      { name: "empty.dat", type: "application/octet-stream", bytes: [] },
    ]);
  });

  test("an iMIP part reads back as text/calendar with its method", async () => {
    const raw = await composeUnsigned(cases.find(([name]) => name.startsWith("an iMIP"))![1]);
    const parsed = await simpleParser(Buffer.from(raw));
    expect(parsed.text).toBe("Line one\nLine two\n");
    const calendar = parsed.attachments.find((a) => a.contentType === "text/calendar");
    expect(calendar?.content.toString()).toContain("METHOD:REPLY");
    expect(Buffer.from(raw).toString("latin1")).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=REPLY/);
  });

  test("a tree with content it does not write (a stream) is left to build(): null", async () => {
    const root = new MailComposer({
      from: "a@example.com",
      to: "b@example.org",
      text: Readable.from([Buffer.from("streamed")]),
      newline: "win",
    }).compile();
    expect(mimeBytes(root)).toBeNull();
    const parsed = await simpleParser(await root.build());
    expect(parsed.text).toBe("streamed\n");
  });
});
