// Inbound mail for dashboard tests, through the real path minus the socket: acceptInbound stores
// it as the SMTP listener does, and screenMessage runs the worker's screening task on it.
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import type { TestContext } from "./context.ts";
import { mailboxRow } from "./mailbox-row.ts";

export async function receive(ctx: TestContext, mailboxId: string, raw: string, remoteIp: string | null = null): Promise<string> {
  const mailbox = await mailboxRow(ctx, mailboxId);
  if (!mailbox) throw new Error(`no mailbox ${mailboxId}`);
  const [id] = await acceptInbound(ctx.svc, new TextEncoder().encode(raw), [mailbox], {
    remoteIp,
    helo: remoteIp ? "sender.example" : null,
    mailFrom: null,
  });
  await screenMessage(ctx.svc, id!);
  return id!;
}

/** A small RFC 5322 message; `html` makes it multipart/alternative with that HTML part. */
export function mime(o: {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  messageId?: string;
  inReplyTo?: string;
  attachment?: { name: string; type: string; content: string };
}): string {
  const head = [
    `From: ${o.from}`,
    `To: ${o.to}`,
    `Subject: ${o.subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: ${o.messageId ?? `<${crypto.randomUUID()}@sender.example>`}`,
    ...(o.inReplyTo ? [`In-Reply-To: ${o.inReplyTo}`, `References: ${o.inReplyTo}`] : []),
    "MIME-Version: 1.0",
  ];
  const parts: string[] = [`Content-Type: text/plain; charset=utf-8\r\n\r\n${o.text}`];
  if (o.html) parts.push(`Content-Type: text/html; charset=utf-8\r\n\r\n${o.html}`);
  if (!o.html && !o.attachment) return `${head.join("\r\n")}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${o.text}\r\n`;
  let body =
    parts.length > 1
      ? `Content-Type: multipart/alternative; boundary="alt"\r\n\r\n${parts.map((p) => `--alt\r\n${p}\r\n`).join("")}--alt--`
      : parts[0]!;
  if (o.attachment) {
    const encoded = Buffer.from(o.attachment.content).toString("base64");
    body = `Content-Type: multipart/mixed; boundary="mix"\r\n\r\n--mix\r\n${body}\r\n--mix\r\nContent-Type: ${o.attachment.type}\r\nContent-Disposition: attachment; filename="${o.attachment.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${encoded}\r\n--mix--`;
  }
  return `${head.join("\r\n")}\r\n${body}\r\n`;
}
