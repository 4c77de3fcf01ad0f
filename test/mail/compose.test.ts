import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { simpleParser } from "mailparser";
import { type ComposeInput, composeMessage } from "../../src/mail/compose.ts";
import { BASE_COMPOSE_INPUT } from "../support/compose-input.ts";

const base: ComposeInput = BASE_COMPOSE_INPUT;

const text = (raw: Uint8Array) => Buffer.from(raw).toString("utf8");
const headerBlock = (raw: Uint8Array) => text(raw).split("\r\n\r\n")[0]!;
/** Unfolded header lines, so assertions do not depend on where lines were folded. */
const headerLines = (raw: Uint8Array) =>
  headerBlock(raw)
    .replace(/\r\n[ \t]+/g, " ")
    .split("\r\n");
const header = (raw: Uint8Array, name: string) => headerLines(raw).find((l) => l.toLowerCase().startsWith(name.toLowerCase() + ":"));

describe("composeMessage", () => {
  test("builds a text/plain UTF-8 message with the expected headers", async () => {
    const raw = await composeMessage(base);
    expect(header(raw, "From")).toBe("From: Support Bot <agent-bot@mail.example.com>");
    expect(header(raw, "To")).toBe("To: alice@example.org");
    expect(header(raw, "Subject")).toBe("Subject: Hello there");
    expect(header(raw, "Message-ID")).toBe("Message-ID: <msg_123@mail.example.com>");
    expect(header(raw, "Date")).toBe("Date: Wed, 01 May 2024 10:00:00 +0000");
    expect(header(raw, "MIME-Version")).toBe("MIME-Version: 1.0");
    expect(header(raw, "Content-Type")?.toLowerCase()).toBe("content-type: text/plain; charset=utf-8");
    expect(header(raw, "In-Reply-To")).toBeUndefined();
    expect(header(raw, "List-Unsubscribe")).toBeUndefined();
    // Every line ends in CRLF, as SMTP requires.
    expect(text(raw).replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);

    const parsed = await simpleParser(Buffer.from(raw));
    expect(parsed.text).toBe("Line one\nLine two\n");
  });

  test("a From without a display name is the bare address", async () => {
    const raw = await composeMessage({ ...base, fromName: null });
    expect(header(raw, "From")).toBe("From: agent-bot@mail.example.com");
  });

  test("encodes a UTF-8 subject, display name and body", async () => {
    const raw = await composeMessage({
      ...base,
      fromName: "Zoë Brontë",
      subject: "Grüße aus Köln — 日本語 ✓",
      text: "Ça marche très bien, merci ✓\n",
    });
    // Headers stay 7-bit: non-ASCII goes into RFC 2047 encoded words.
    expect(headerBlock(raw)).toMatch(/^[\x00-\x7f]*$/);
    expect(header(raw, "Subject")).toContain("=?UTF-8?");
    const parsed = await simpleParser(Buffer.from(raw));
    expect(parsed.subject).toBe("Grüße aus Köln — 日本語 ✓");
    expect(parsed.from?.value[0]?.name).toBe("Zoë Brontë");
    expect(parsed.text).toBe("Ça marche très bien, merci ✓\n");
  });

  test("a reply carries In-Reply-To and References ending with the parent", async () => {
    const raw = await composeMessage({
      ...base,
      inReplyTo: "<parent@other.example>",
      references: ["root@other.example", "<mid@other.example>"],
    });
    expect(header(raw, "In-Reply-To")).toBe("In-Reply-To: <parent@other.example>");
    expect(header(raw, "References")).toBe("References: <root@other.example> <mid@other.example> <parent@other.example>");
  });

  test("long References keep the root and the latest ids; malformed ones are dropped", async () => {
    const refs = ["root@x.example", "not an id", ...Array.from({ length: 30 }, (_, i) => `r${i}@x.example`)];
    const raw = await composeMessage({ ...base, inReplyTo: "r29@x.example", references: refs });
    const ids = header(raw, "References")!.replace("References: ", "").split(" ");
    expect(ids).toHaveLength(20);
    expect(ids[0]).toBe("<root@x.example>");
    expect(ids[19]).toBe("<r29@x.example>");
    expect(ids).not.toContain("<not>");
  });

  test("adds RFC 8058 one-click unsubscribe headers", async () => {
    const raw = await composeMessage({
      ...base,
      unsubscribe: { url: "https://mail.example.com/u/tok_abc?m=1", mailto: "unsubscribe+tok_abc@mail.example.com" },
    });
    expect(header(raw, "List-Unsubscribe")).toBe(
      "List-Unsubscribe: <https://mail.example.com/u/tok_abc?m=1>, <mailto:unsubscribe+tok_abc@mail.example.com>",
    );
    expect(header(raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
  });

  test("refuses a non-https unsubscribe URL", async () => {
    const unsubscribe = { url: "http://mail.example.com/u", mailto: "u@mail.example.com" };
    await expect(composeMessage({ ...base, unsubscribe })).rejects.toThrow(/https/);
  });

  describe("DKIM", () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const p = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const record = `v=DKIM1; k=rsa; p=${p}`;
    // A TXT record is a list of strings of at most 255 bytes each.
    const txt = [record.match(/.{1,255}/g)!];
    const resolver = async (name: string, rrtype: string) => {
      if (rrtype === "TXT" && name === "s1._domainkey.mail.example.com") return txt;
      throw Object.assign(new Error("no record"), { code: "ENOTFOUND" });
    };
    const signed = () =>
      composeMessage({
        ...base,
        subject: "Signed — ✓",
        inReplyTo: "parent@other.example",
        unsubscribe: { url: "https://mail.example.com/u/tok", mailto: "mailto:u@mail.example.com" },
        dkim: { domainName: "mail.example.com", keySelector: "s1", privateKey: pem },
      });

    test("signs the message, List-Unsubscribe headers included, and the signature verifies", async () => {
      const raw = await signed();
      expect(text(raw).startsWith("DKIM-Signature:")).toBe(true);
      const sig = header(raw, "DKIM-Signature")!.replace(/\s+/g, "");
      const h = /;h=([^;]+)/.exec(sig)![1]!.toLowerCase().split(":");
      for (const name of ["from", "to", "subject", "date", "message-id", "in-reply-to", "list-unsubscribe", "list-unsubscribe-post"]) {
        expect(h).toContain(name);
      }
      expect(sig).toContain("d=mail.example.com");
      expect(sig).toContain("s=s1");

      const result = await dkimVerify(Buffer.from(raw), { resolver } as any);
      expect(result.results[0]?.status.result).toBe("pass");
    });

    test("a changed List-Unsubscribe breaks the signature", async () => {
      const raw = text(await signed()).replace("https://mail.example.com/u/tok", "https://evil.example/u/tok");
      const result = await dkimVerify(Buffer.from(raw), { resolver } as any);
      expect(result.results[0]?.status.result).toBe("fail");
    });

    test("a key that cannot sign is an error, not an unsigned message", async () => {
      const dkim = { domainName: "mail.example.com", keySelector: "s1", privateKey: "not a key" };
      await expect(composeMessage({ ...base, dkim })).rejects.toThrow(/DKIM/);
    });
  });

  describe("refuses CR/LF in header inputs", () => {
    const cases: [string, Partial<ComposeInput>][] = [
      ["subject", { subject: "Hi\r\nBcc: victim@example.net" }],
      ["subject (bare LF)", { subject: "Hi\nBcc: victim@example.net" }],
      ["fromName", { fromName: "Bot\r\nBcc: victim@example.net" }],
      ["from", { from: "a@b.example\r\nBcc: victim@example.net" }],
      ["to", { to: "a@b.example\nBcc: victim@example.net" }],
      ["messageId", { messageId: "x@y\r\nBcc: victim@example.net" }],
      ["inReplyTo", { inReplyTo: "x@y\r\nBcc: victim@example.net" }],
      ["references", { references: ["x@y\r\nBcc: victim@example.net"] }],
      ["unsubscribe.url", { unsubscribe: { url: "https://a.example/\r\nBcc: v@example.net", mailto: "u@a.example" } }],
      ["unsubscribe.mailto", { unsubscribe: { url: "https://a.example/", mailto: "u@a.example\r\nX: y" } }],
    ];
    for (const [name, patch] of cases) {
      test(name, async () => {
        await expect(composeMessage({ ...base, ...patch })).rejects.toThrow(/CR or LF/);
      });
    }

    test("a to or from that is not one bare address is refused", async () => {
      await expect(composeMessage({ ...base, to: "a@b.example, c@d.example" })).rejects.toThrow(/to must be/);
      await expect(composeMessage({ ...base, from: "Bot <a@b.example>" })).rejects.toThrow(/from must be/);
    });

    test("a message id with angle brackets or spaces is refused", async () => {
      await expect(composeMessage({ ...base, messageId: "a b@c" })).rejects.toThrow(/messageId/);
    });
  });
});
