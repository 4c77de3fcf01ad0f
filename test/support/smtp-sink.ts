import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";

/**
 * How the sink answers the next transaction; settable between sends.
 * - accept: 250 with a queue id ("queued as <id>")
 * - reject550 / defer451: the final reply to the message data
 * - reject-rcpt-550 / defer-rcpt-451: the reply to RCPT TO
 * - drop-after-data: reads the whole message, then drops the connection without replying
 *   (the message is still recorded: the sender cannot know whether it "arrived")
 * - drop-at-rcpt: drops the connection when RCPT TO arrives (before any message data)
 * - hold-rcpt: never answers RCPT TO until `release()` (then 250): a sender stalled before DATA
 * - hold-reply: reads the whole message (final dot included) and records it, then holds the
 *   final reply until `release()` (then 250): a sender waiting for the verdict
 */
export type SinkMode =
  | "accept"
  | "reject550"
  | "defer451"
  | "drop-after-data"
  | "reject-rcpt-550"
  | "defer-rcpt-451"
  | "drop-at-rcpt"
  | "hold-rcpt"
  | "hold-reply";

export type SinkMessage = {
  from: string;
  to: string[];
  raw: Buffer;
  queueId: string;
  /** Whether the session ran over TLS (STARTTLS or implicit). */
  tls: boolean;
  /** The authenticated user, when the client logged in. */
  user: string | null;
};

export type SmtpSink = {
  port: number;
  messages: SinkMessage[];
  mode: SinkMode;
  /** Transactions held by hold-rcpt / hold-reply right now. */
  held(): number;
  /** Answers every held transaction with 250. */
  release(): void;
  close(): Promise<void>;
};

export type SinkOptions = {
  /** Implicit TLS from the first byte (smtps), with smtp-server's built-in certificate. */
  secure?: boolean;
  /** Offer STARTTLS with smtp-server's built-in self-signed certificate. */
  starttls?: boolean;
  /** Offer AUTH (over plain text too) and accept only these credentials. */
  auth?: { user: string; pass: string };
};

export async function startSmtpSink(o: SinkOptions = {}): Promise<SmtpSink> {
  let nextId = 1;
  const held: (() => void)[] = [];
  const disabled = [...(o.starttls && !o.secure ? [] : ["STARTTLS"]), ...(o.auth ? [] : ["AUTH"])];

  const server: SMTPServer = new SMTPServer({
    logger: false,
    secure: !!o.secure,
    // No DNS on test machines, and nothing here needs the client's name.
    disableReverseLookup: true,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: disabled,
    onAuth(auth, _session, cb) {
      if (o.auth && auth.username === o.auth.user && auth.password === o.auth.pass) {
        return cb(null, { user: auth.username });
      }
      cb(withCode(new Error("Authentication failed"), 535));
    },
    onRcptTo(_address, session, cb) {
      if (sink.mode === "drop-at-rcpt") {
        for (const c of server.connections) if (c.id === session.id) c._socket.destroy();
        return;
      }
      if (sink.mode === "hold-rcpt") return void held.push(() => cb());
      if (sink.mode === "reject-rcpt-550") return cb(withCode(new Error("No such user here"), 550));
      if (sink.mode === "defer-rcpt-451") return cb(withCode(new Error("Try again later"), 451));
      cb();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const queueId = `Q${String(nextId++).padStart(6, "0")}`;
        const record = () =>
          sink.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
            queueId,
            tls: !!session.secure,
            user: typeof session.user === "string" ? session.user : null,
          });
        switch (sink.mode) {
          case "reject550":
            return cb(withCode(new Error("Message rejected as spam"), 550));
          case "defer451":
            return cb(withCode(new Error("Local error, try again later"), 451));
          case "hold-reply":
            record();
            return void held.push(() => cb(null, `Ok: queued as ${queueId}`));
          case "drop-after-data":
            record();
            // No reply at all: the client is left not knowing whether we took it.
            for (const c of server.connections) if (c.id === session.id) c._socket.destroy();
            return;
          default:
            record();
            return cb(null, `Ok: queued as ${queueId}`);
        }
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });

  const sink: SmtpSink = {
    port: (server.server.address() as AddressInfo).port,
    messages: [],
    mode: "accept",
    held: () => held.length,
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        // smtp-server waits up to 30 s for open sessions; a test sink has nothing to wait for.
        for (const c of server.connections) c._socket.destroy();
        server.close(() => resolve());
      }),
  };
  return sink;
}

function withCode(err: Error, responseCode: number): Error {
  return Object.assign(err, { responseCode });
}
