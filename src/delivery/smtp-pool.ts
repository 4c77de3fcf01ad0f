// Reused SMTP sessions to one server (the relay, or one MX host's address: mx.ts keeps one pool
// per server), so that a message does not pay for a new TCP connection, greeting, EHLO (and
// STARTTLS, AUTH when configured) of its own: here a session that has just
// carried a message (250) waits idle for the next one instead of quitting. Only a session whose
// last transaction ended in 250 is kept: after any failure it is closed, as before. A kept session
// that turns out dead when reused (the server closed it while idle) fails before a byte of the
// message was sent, so that delivery is retried once on a fresh session; nothing can be sent twice.
import type SMTPConnection from "nodemailer/lib/smtp-connection";
import type { DeliveryEnvelope, DeliveryMeta } from "../core/transport.ts";
import { closeConnection, openSmtpSession, type SmtpSessionOptions, type SmtpSessionResult, sendOnSession } from "./smtp-session.ts";

export type SmtpPool = {
  deliver(envelope: DeliveryEnvelope, raw: Uint8Array, meta: DeliveryMeta): Promise<SmtpSessionResult>;
  /** Sessions waiting for a message now. */
  idleCount(): number;
  close(): Promise<void>;
};

type Idle = { conn: SMTPConnection; timer: ReturnType<typeof setTimeout>; onEnd: () => void };

export function makeSmtpPool(o: SmtpSessionOptions, limits: { maxIdle: number; idleMs: number }): SmtpPool {
  const idle: Idle[] = [];
  let closed = false;

  const socketOf = (conn: SMTPConnection) => (conn as unknown as { _socket?: { ref?(): void; unref?(): void } })._socket;

  function take(): SMTPConnection | null {
    while (idle.length > 0) {
      const entry = idle.pop()!;
      clearTimeout(entry.timer);
      entry.conn.off("end", entry.onEnd);
      if (entry.conn.destroyed) continue;
      socketOf(entry.conn)?.ref?.();
      return entry.conn;
    }
    return null;
  }

  function release(conn: SMTPConnection): void {
    if (closed || idle.length >= limits.maxIdle || conn.destroyed) {
      void closeConnection(conn);
      return;
    }
    const entry: Idle = {
      conn,
      // Quit politely before a server's own idle timeout would cut the session.
      timer: setTimeout(() => drop(entry, true), limits.idleMs),
      // One the server closes while idle is forgotten.
      onEnd: () => drop(entry, false),
    };
    entry.timer.unref?.();
    // An idle session must not keep the process alive.
    socketOf(conn)?.unref?.();
    conn.once("end", entry.onEnd);
    idle.push(entry);
  }

  function drop(entry: Idle, quit: boolean): void {
    const at = idle.indexOf(entry);
    if (at >= 0) idle.splice(at, 1);
    clearTimeout(entry.timer);
    entry.conn.off("end", entry.onEnd);
    if (quit) void closeConnection(entry.conn);
  }

  /** The outcome carries the stage it was reached at: the outcome record keeps it. */
  const staged = (r: SmtpSessionResult): SmtpSessionResult => ({ outcome: { ...r.outcome, stage: r.stage }, stage: r.stage });

  async function fresh(envelope: DeliveryEnvelope, raw: Uint8Array, meta: DeliveryMeta): Promise<SmtpSessionResult> {
    const opened = await openSmtpSession(o);
    if ("outcome" in opened) return staged(opened);
    const result = await sendOnSession(opened.conn, o, envelope, raw, meta);
    if (result.reusable) release(opened.conn);
    else setImmediate(() => void closeConnection(opened.conn));
    return staged(result);
  }

  return {
    async deliver(envelope, raw, meta) {
      const reused = take();
      if (!reused) return fresh(envelope, raw, meta);
      const result = await sendOnSession(reused, o, envelope, raw, meta);
      if (result.reusable) {
        release(reused);
        return staged(result);
      }
      setImmediate(() => void closeConnection(reused));
      // Refused or lost at MAIL FROM on a session that sat idle: no part of the message went out,
      // and the server may simply have ended the session. A fresh one decides.
      if (result.stage === "mail" && result.outcome.kind === "transient") return fresh(envelope, raw, meta);
      return staged(result);
    },
    idleCount: () => idle.length,
    async close() {
      closed = true;
      await Promise.all(idle.splice(0).map((entry) => (clearTimeout(entry.timer), closeConnection(entry.conn))));
    },
  };
}
