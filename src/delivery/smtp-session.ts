import type { Readable } from "node:stream";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import type { DeliveryEnvelope, DeliveryMeta, DeliveryOutcome } from "../core/transport.ts";

/**
 * Where an SMTP session got to. Everything up to `content` ends before the server can hold
 * the message (with a final-dot mark, `content` spans the mark, before any byte of the message
 * is written); `final` begins when the message and its final dot are handed to the socket and
 * lasts until the server's answer, where a lost connection leaves the outcome unknown.
 */
export type SmtpStage = "connect" | "ehlo" | "starttls" | "auth" | "mail" | "rcpt" | "data" | "content" | "final";

export type StartTlsPolicy = "required" | "opportunistic" | "off";

export type SmtpSessionOptions = {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465 style). */
  secure?: boolean;
  /** STARTTLS on a plain connection; ignored when `secure`. Default opportunistic. */
  starttls?: StartTlsPolicy;
  /** Verify the server certificate. Default true. */
  rejectUnauthorized?: boolean;
  /** TLS SNI name, when `host` is an IP address picked for a named server. */
  servername?: string;
  auth?: { user: string; pass: string } | null;
  /** Our EHLO hostname. */
  name: string;
  connectionTimeoutMs: number;
  greetingTimeoutMs: number;
  /** Inactivity limit for every later reply, the final one included. */
  socketTimeoutMs: number;
};

export type SmtpSessionResult = { outcome: DeliveryOutcome; stage: SmtpStage };

type SmtpError = Error & { code?: string; responseCode?: number; command?: string };

/** nodemailer's socket, corked while a message and its dot are written (see sendOnSession). */
const socketOf = (conn: SMTPConnection) => (conn as unknown as { _socket?: { cork?(): void; uncork?(): void } })._socket;

// Bounds the polite QUIT so a silent server cannot hold the caller after the outcome is known.
const QUIT_WAIT_MS = 2000;

/**
 * Connects, greets (EHLO, STARTTLS by policy) and logs in when asked: a session ready for MAIL,
 * or the outcome of the failure (the connection is then closed).
 */
export function openSmtpSession(o: SmtpSessionOptions): Promise<{ conn: SMTPConnection } | SmtpSessionResult> {
  return new Promise((resolve) => {
    let stage: SmtpStage = "connect";
    let settled = false;
    const conn = new SMTPConnection({
      host: o.host,
      port: o.port,
      secure: !!o.secure,
      requireTLS: !o.secure && o.starttls === "required",
      opportunisticTLS: o.starttls === undefined || o.starttls === "opportunistic",
      ignoreTLS: o.starttls === "off",
      servername: o.servername,
      tls: { rejectUnauthorized: o.rejectUnauthorized ?? true },
      name: o.name,
      connectionTimeout: o.connectionTimeoutMs,
      greetingTimeout: o.greetingTimeoutMs,
      socketTimeout: o.socketTimeoutMs,
      socketCloseTimeout: QUIT_WAIT_MS,
      logger: false,
    });
    // Errors after an outcome is settled (a late close, a pooled session dropped while idle) are
    // not news; without a listener nodemailer's 'error' event would throw.
    conn.on("error", () => {});
    const done = (result: { conn: SMTPConnection } | SmtpSessionResult) => {
      if (settled) return;
      settled = true;
      conn.off("error", fail);
      conn.off("end", lost);
      if ("conn" in result) return resolve(result);
      // Deferred: on a socket failure nodemailer emits 'error' first and closes right after.
      setImmediate(() => closeConnection(conn).then(() => resolve(result)));
    };
    function fail(err: SmtpError) {
      // A TLS handshake failure surfaces as a plain socket error; `upgrading` tells it apart.
      const at = conn.upgrading ? "starttls" : stageOf(err, stage, !!o.secure);
      done({ outcome: outcomeFor(err, at, `${o.host}:${o.port}`), stage: at });
    }
    function lost() {
      fail(Object.assign(new Error("Connection closed"), { code: "ECONNECTION" }));
    }
    // Connection-phase failures arrive only as 'error' events; an unhandled one would throw.
    conn.on("error", fail);
    // A close without an error (e.g. between commands) is still a lost connection.
    conn.on("end", lost);

    conn.connect((err) => {
      if (err) return fail(err as SmtpError);
      if (!o.auth || !conn.allowsAuth) return done({ conn });
      stage = "auth";
      conn.login({ user: o.auth.user, pass: o.auth.pass }, (loginErr) => {
        if (loginErr) return fail(loginErr as SmtpError);
        done({ conn });
      });
    });
  });
}

/**
 * One mail transaction (MAIL, RCPT, DATA) on an open session. `reusable` is true only after a
 * 250 for the message, when the session is back at its start and may carry the next one; the
 * caller closes it otherwise.
 */
export function sendOnSession(
  conn: SMTPConnection,
  o: Pick<SmtpSessionOptions, "host" | "port" | "secure">,
  envelope: DeliveryEnvelope,
  raw: Uint8Array,
  meta: DeliveryMeta,
): Promise<SmtpSessionResult & { reusable: boolean }> {
  return new Promise((resolve) => {
    let stage: SmtpStage = "mail";
    let settled = false;
    let aborted = false;
    const finish = (outcome: DeliveryOutcome, at: SmtpStage, reusable: boolean) => {
      if (settled) return;
      settled = true;
      conn.off("error", fail);
      conn.off("end", lost);
      resolve({ outcome, stage: at, reusable });
    };
    function fail(err: SmtpError) {
      // Held back before the final dot: cut the session now rather than QUIT inside the data.
      if (aborted) conn.close();
      const at = stageOf(err, stage, !!o.secure);
      finish(outcomeFor(err, at, `${o.host}:${o.port}`), at, false);
    }
    function lost() {
      fail(Object.assign(new Error("Connection closed"), { code: "ECONNECTION" }));
    }
    conn.on("error", fail);
    conn.on("end", lost);
    if (conn.destroyed) return lost();

    const body = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    // nodemailer hands the message to its dot-stuffing stream once the server has answered DATA
    // with 354 (it calls the source's pipe()). Only then is beforeFinalDot asked to record that the
    // server may now accept the message; once it has, the whole message and the terminating dot
    // are written together, in one write to the socket. If the mark fails, the source reports the
    // error instead: nodemailer writes neither the message nor the dot, and the session is cut
    // (the server discards a transaction without its dot). No Readable and pipe per message.
    let reportError: ((error: Error) => void) | null = null;
    let dropped = false;
    // What nodemailer asks of a message stream: pipe() after 354, an 'error' listener, and
    // removeListener and destroy() when it tears the session down.
    const source = {
      on(event: string, listener: (error: Error) => void) {
        if (event === "error") reportError = listener;
        return source;
      },
      removeListener(event: string, listener: (error: Error) => void) {
        if (event === "error" && reportError === listener) reportError = null;
        return source;
      },
      destroy() {
        dropped = true;
      },
      pipe(data: NodeJS.WritableStream) {
        stage = "content";
        const writeAll = () => {
          // Lost meanwhile: the outcome is settled (before any byte of the message); write nothing.
          if (settled || dropped || conn.destroyed) return;
          const socket = socketOf(conn);
          socket?.cork?.();
          data.write(body);
          data.end();
          stage = "final";
          // Corked until the dot has been handed to the socket too (nodemailer writes it as the
          // stream ends), so that both leave in one segment.
          if (socket) process.nextTick(() => socket.uncork?.());
        };
        const mark = meta.beforeFinalDot;
        if (!mark) writeAll();
        else {
          // Called from nodemailer's socket handler: a mark that throws at once must end the send
          // as one that rejects, not escape as an uncaught exception.
          Promise.resolve()
            .then(() => mark())
            .then(writeAll, (error: Error) => {
              aborted = true;
              reportError?.(error);
            });
        }
        return data;
      },
    };
    // Typed as a Readable by nodemailer; it uses only what `source` has (index.js, send and close).
    conn.send({ from: envelope.from, to: [envelope.to], size: body.length }, source as unknown as Readable, (err, info) => {
      if (err) return fail(err as SmtpError);
      const response = info?.response ?? "";
      finish({ kind: "sent", providerMessageId: queueIdOf(response) ?? meta.messageId, response }, "final", true);
    });
  });
}

/** The server's queue id from a 250 reply, when it names one (Postfix, Exim and the like). */
export function queueIdOf(response: string): string | null {
  const m = /\bqueued as ([A-Za-z0-9][\w.@-]*)/i.exec(response) ?? /\bid=([A-Za-z0-9][\w.@-]*)/i.exec(response);
  return m ? m[1]! : null;
}

function stageOf(err: SmtpError, tracked: SmtpStage, secure: boolean): SmtpStage {
  // Once the message is being written, our own tracking is the only trustworthy source:
  // nodemailer reports a lost connection the same way at every stage.
  if (tracked === "content" || tracked === "final") return tracked;
  const command = err.command ?? "";
  if (command === "MAIL FROM") return "mail";
  if (command === "RCPT TO") return "rcpt";
  if (command === "DATA") return "data";
  if (command === "EHLO" || command === "HELO" || command === "LHLO") return "ehlo";
  if (command === "STARTTLS" || (err.code === "ETLS" && !secure)) return "starttls";
  if (command.startsWith("AUTH")) return "auth";
  return tracked;
}

function outcomeFor(err: SmtpError, stage: SmtpStage, server: string): DeliveryOutcome {
  const code = typeof err.responseCode === "number" ? err.responseCode : undefined;
  const error = `${server} ${stage}: ${err.message}`;
  if (code !== undefined && code >= 500) return { kind: "permanent", error, responseCode: code };
  if (code !== undefined && code >= 400) return { kind: "transient", error, responseCode: code };
  // The server had the whole message and we never heard its verdict: it may have taken it.
  if (stage === "final") return { kind: "unknown", error };
  // Refused before a byte was sent: nodemailer's own checks (bad address, over the SIZE limit).
  if ((err.code === "EENVELOPE" || err.code === "EMESSAGE") && (err.command === "API" || err.command === "MAIL FROM")) {
    return { kind: "permanent", error };
  }
  return { kind: "transient", error };
}

/** QUIT when the session is still up, then make sure the socket is gone. */
export function closeConnection(conn: SMTPConnection): Promise<void> {
  if (conn.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      conn.close();
      resolve();
    }, QUIT_WAIT_MS);
    conn.once("end", () => {
      clearTimeout(timer);
      resolve();
    });
    conn.quit();
  });
}
