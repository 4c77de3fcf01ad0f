// Helpers for inbound tests: SMTP clients (nodemailer for ordinary mail, a raw socket
// conversation where a test needs the exact reply to each command or must send bytes no library
// would), and services over the same test database with other configuration.
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nodemailer from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import { loadConfig } from "../../src/config.ts";
import { makeServices, type Services } from "../../src/core/services.ts";
import { makeTransport } from "../../src/delivery/index.ts";
import { makeLogger } from "../../src/log.ts";
import { makeResolver } from "../../src/mail/resolver.ts";
import type { TestContext } from "./context.ts";

/**
 * A DATA_DIR kept across test processes: the listener generates its self-signed STARTTLS
 * certificate there once (about two seconds) instead of once per test file.
 */
export const reusableDataDir = join(tmpdir(), "mailbox-inbound-tests-data");

/**
 * The test context's database and pool, configured from other environment variables: one file
 * can run the listener or a task in several modes without a database per mode.
 */
export function servicesWith(ctx: TestContext, env: Record<string, string>): Services {
  const config = loadConfig({
    LOG_LEVEL: "silent",
    INBOUND_AUTH_MODE: "off",
    DATA_DIR: ctx.config.dataDir,
    ...env,
    DATABASE_URL: ctx.config.databaseUrl!,
  });
  return makeServices(
    {
      sql: ctx.sql,
      config,
      log: makeLogger(config.logLevel),
      resolve: makeResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
    },
    makeTransport,
  );
}

export type SmtpReply = { code: number; text: string };

export type RawSmtp = {
  greeting: SmtpReply;
  /** Sends one command line and waits for its complete (possibly multi-line) reply. */
  command(line: string): Promise<SmtpReply>;
  /** DATA, then the message dot-stuffed and terminated, then the final reply. */
  data(message: Uint8Array | string): Promise<SmtpReply>;
  write(bytes: Uint8Array | string): void;
  read(timeoutMs?: number): Promise<SmtpReply>;
  /** Resolves when the server closes the connection; carries everything received since the last reply. */
  closed: Promise<string>;
  close(): void;
};

export async function openSmtp(port: number, host = "127.0.0.1"): Promise<RawSmtp> {
  const socket = net.connect(port, host);
  let buffer = "";
  const replies: SmtpReply[] = [];
  const waiting: { resolve: (reply: SmtpReply) => void; reject: (error: Error) => void }[] = [];
  let isClosed = false;
  const closed = new Promise<string>((resolve) =>
    socket.on("close", () => {
      isClosed = true;
      for (const reader of waiting.splice(0)) reader.reject(new Error(`connection closed; received so far: ${JSON.stringify(buffer)}`));
      resolve(buffer);
    }),
  );
  socket.on("error", () => {});
  socket.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("latin1");
    // A reply is complete at its last line: three digits then a space (or nothing).
    for (;;) {
      const match = /(^|\r\n)(\d{3})(?: [^\r\n]*)?\r\n/.exec(buffer);
      if (!match) break;
      const end = match.index + match[0].length;
      const reply = { code: Number(match[2]), text: buffer.slice(0, end).trimEnd() };
      buffer = buffer.slice(end);
      const next = waiting.shift();
      if (next) next.resolve(reply);
      else replies.push(reply);
    }
  });

  // Generous: a listener busy with other work on a loaded machine answers late, not never.
  const read = (timeoutMs = 60_000) =>
    new Promise<SmtpReply>((resolve, reject) => {
      const ready = replies.shift();
      if (ready) return resolve(ready);
      if (isClosed) return reject(new Error(`connection closed; received so far: ${JSON.stringify(buffer)}`));
      const timer = setTimeout(
        () => reject(new Error(`no SMTP reply within ${timeoutMs} ms; received so far: ${JSON.stringify(buffer)}`)),
        timeoutMs,
      );
      waiting.push({
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  const write = (bytes: Uint8Array | string) => void socket.write(bytes);
  const command = (line: string) => {
    write(`${line}\r\n`);
    return read();
  };

  const greeting = await read();
  return {
    greeting,
    command,
    write,
    read,
    closed,
    close: () => socket.destroy(),
    async data(message) {
      const go = await command("DATA");
      if (go.code !== 354) return go;
      write(dotStuffed(typeof message === "string" ? Buffer.from(message, "latin1") : message));
      return read();
    },
  };
}

/** The message as it goes on the wire: leading dots doubled, ended by CRLF . CRLF. */
export function dotStuffed(message: Uint8Array): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < message.length; i++) {
    if (message[i] === 0x2e && (i === 0 || message[i - 1] === 0x0a)) {
      parts.push(Buffer.from(message.subarray(start, i)), Buffer.from("."));
      start = i;
    }
  }
  parts.push(Buffer.from(message.subarray(start)));
  const endsWithCrlf = message.length >= 2 && message[message.length - 2] === 0x0d && message[message.length - 1] === 0x0a;
  parts.push(Buffer.from(endsWithCrlf || message.length === 0 ? ".\r\n" : "\r\n.\r\n"));
  return Buffer.concat(parts);
}

/** One whole transaction over a fresh connection; every reply on the way is returned. */
export async function deliverRaw(
  port: number,
  envelope: { from: string; to: string[] },
  message: Uint8Array | string,
): Promise<{ mail: SmtpReply; rcpt: SmtpReply[]; data: SmtpReply | null }> {
  const smtp = await openSmtp(port);
  try {
    await smtp.command("EHLO client.test");
    const mail = await smtp.command(`MAIL FROM:<${envelope.from}>`);
    const rcpt: SmtpReply[] = [];
    for (const to of envelope.to) rcpt.push(await smtp.command(`RCPT TO:<${to}>`));
    const data = rcpt.some((reply) => reply.code === 250) ? await smtp.data(message) : null;
    await smtp.command("QUIT").catch(() => null);
    return { mail, rcpt, data };
  } finally {
    smtp.close();
  }
}

export type SendOptions = { requireTLS?: boolean; dkim?: Mail.Options["dkim"]; name?: string };

/** Sends through nodemailer's SMTP transport, as any mail server on the internet would reach us. */
export async function sendMail(port: number, mail: Mail.Options, options: SendOptions = {}) {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port,
    secure: false,
    // STARTTLS only when a test asks: a handshake per message would only slow the rest down.
    ignoreTLS: !options.requireTLS,
    requireTLS: !!options.requireTLS,
    tls: { rejectUnauthorized: false },
    name: options.name ?? "client.test",
    dkim: options.dkim,
    connectionTimeout: 5_000,
    greetingTimeout: 5_000,
    socketTimeout: 15_000,
  });
  try {
    return await transport.sendMail(mail);
  } finally {
    transport.close();
  }
}

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
