// The inbound SMTP listener: mail servers on the internet deliver straight to it. It accepts mail
// only for our mailboxes (never an open relay) and answers 250 only after the message and its
// processing job are committed; any failure to store answers 4xx so the sender retries.
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { lookupRecipient, type RecipientLookup, receiveForLookedUp } from "../src/core/inbound/index.ts";
import type { Services } from "../src/core/services.ts";
import { errorFields } from "../src/log.ts";
import { smtpMessages, smtpSessions } from "../src/metrics.ts";
import { makeFairness } from "./fairness.ts";
import { messageLimitCheck } from "./limits.ts";
import { makeRecipientCache } from "./recipient-cache.ts";
import { loadTlsMaterial } from "./tls.ts";

/** A message's chunks are joined into blocks of this size as they arrive. */
const BLOCK_BYTES = 1024 * 1024;

export type SmtpListener = { port: number; close(): Promise<void> };

class SmtpReply extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** A refusal, counted by reason (a closed set) before it is answered. */
function reject(reason: string, responseCode: number, message: string): SmtpReply {
  smtpMessages.inc({ result: "rejected", reason });
  return new SmtpReply(responseCode, message);
}

export async function startSmtpListener(svc: Services, options: { port?: number; host?: string } = {}): Promise<SmtpListener> {
  const { config, log } = svc;
  const tls = await loadTlsMaterial(config);
  // What RCPT found for each accepted recipient (smtp-server keeps the same address object in the
  // envelope), so storing after DATA does not look every recipient up a second time.
  const lookedUp = new WeakMap<SMTPServerAddress, RecipientLookup>();
  const lookupRecipientCached = makeRecipientCache(svc);

  const fairness = makeFairness(() => server, config.smtp, log);
  const server: SMTPServer = new SMTPServer({
    name: config.smtp.hostname,
    // smtp-server writes "<name> ESMTP <banner>": the banner must not say ESMTP again.
    banner: "agent mailbox service",
    key: tls.key,
    cert: tls.cert,
    size: config.smtp.maxMessageBytes,
    authOptional: true,
    disabledCommands: ["AUTH"],
    // Nothing uses the client's reverse DNS name, and the lookup would delay every greeting.
    disableReverseLookup: true,
    maxClients: config.smtp.maxConnections,
    socketTimeout: config.smtp.idleTimeoutMs,
    closeTimeout: 5_000,
    // Greet at once by default (scripts/patch-smtp-server.mjs makes the library's fixed 100 ms
    // pause this option): the pause cost every sender a tenth of a second per connection, while a
    // client that talks before the greeting is still refused with 421 whatever its length.
    greetingDelay: config.smtp.greetingDelayMs,
    logger: false,

    onConnect: (session: SMTPServerSession, callback: (error?: Error | null) => void) => fairness.onConnect(session, callback),

    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (error?: Error | null) => void) {
      if (session.envelope.rcptTo.length >= config.smtp.maxRecipients) {
        return callback(reject("too_many_recipients", 452, "4.5.3 Too many recipients"));
      }
      lookupRecipientCached(address.address).then(
        (found) => {
          if (found.kind === "not_our_domain")
            return callback(reject("relay_denied", 550, "5.7.1 Relaying denied: not a domain of this service"));
          if (found.kind === "unknown_mailbox") return callback(reject("unknown_mailbox", 550, "5.1.1 No such mailbox"));
          lookedUp.set(address, found);
          callback();
        },
        (error) => {
          log.error("smtp.rcpt_lookup_failed", { session_id: session.id, ...errorFields(error) });
          callback(reject("lookup_failed", 451, "4.3.0 Temporary failure, try again later"));
        },
      );
    },

    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null, message?: string) => void) {
      // The message is checked as it arrives and gathered into blocks of a MiB, which are kept as
      // they are to the end (hashing, parsing and staging read them in turn): joining them into
      // one buffer copied the whole message at once.
      const blocks: Uint8Array[] = [];
      let chunks: Uint8Array[] = [];
      let pending = 0;
      let size = 0;
      const limits = messageLimitCheck();
      stream.on("data", (chunk: Uint8Array) => {
        size += chunk.byteLength;
        // Past the limit smtp-server flags sizeExceeded; stop buffering, keep draining.
        if (size > config.smtp.maxMessageBytes) return;
        limits.push(chunk);
        chunks.push(chunk);
        pending += chunk.byteLength;
        if (pending >= BLOCK_BYTES) {
          // Exactly a MiB (concat truncates to the length given); the rest of the last chunk starts the next block.
          blocks.push(Buffer.concat(chunks, BLOCK_BYTES));
          const over = pending - BLOCK_BYTES;
          chunks = over > 0 ? [chunk.subarray(chunk.byteLength - over)] : [];
          pending = over;
          // A turn of the event loop between MiBs: data that arrived in a burst was otherwise read,
          // unescaped and copied megabyte after megabyte in one synchronous stretch. While the
          // stream is paused, smtp-server waits for it to drain and the socket is not read.
          stream.pause();
          setImmediate(() => stream.resume());
        }
      });
      stream.on("error", (error) => callback(error));
      stream.on("end", () => {
        if (stream.sizeExceeded || size > config.smtp.maxMessageBytes) {
          return callback(reject("too_large", 552, "5.3.4 Message exceeds the maximum size"));
        }
        const violation = limits.violation();
        if (violation) return callback(reject("limits", 552, `5.3.4 Message refused: ${violation}`));
        if (pending > 0 || blocks.length === 0) blocks.push(Buffer.concat(chunks, pending));
        store(blocks, session).then(
          (ids) => {
            smtpMessages.inc({ result: "accepted", reason: "stored" });
            // The session id ties this line to smtp.session; the message ids follow into the worker and webhook lines.
            log.info("smtp.message_stored", { session_id: session.id, message_ids: ids, size });
            callback(null, `2.0.0 Ok: ${ids.length === 0 ? "accepted" : `stored ${ids.length} message${ids.length === 1 ? "" : "s"}`}`);
          },
          (error) => {
            log.error("smtp.store_failed", { session_id: session.id, size, ...errorFields(error) });
            callback(reject("store_failed", 451, "4.3.0 Could not store the message, try again later"));
          },
        );
      });
    },

    onClose(session: SMTPServerSession) {
      fairness.onClose(session);
      smtpSessions.inc();
      log.info("smtp.session", { session_id: session.id, remote_ip: session.remoteAddress, transactions: session.transaction });
    },
  });

  async function store(raw: Uint8Array[], session: SMTPServerSession): Promise<string[]> {
    // What RCPT found (receiveForLookedUp says why that cannot have gone stale); anything not
    // found there is looked up now.
    const found = await Promise.all(
      session.envelope.rcptTo.map((recipient) => lookedUp.get(recipient) ?? lookupRecipient(svc, recipient.address)),
    );
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : null;
    const { stored } = await receiveForLookedUp(svc, raw, found, {
      remoteIp: session.remoteAddress ?? null,
      helo: session.hostNameAppearsAs ?? null,
      mailFrom: mailFrom || null,
    });
    return stored;
  }

  server.on("error", (error) => log.error("smtp.server_error", errorFields(error)));
  const port = await new Promise<number>((resolve, reject) => {
    server.server.once("error", reject);
    // An options object: smtp-server hands listen's arguments to net.Server as they are.
    const address = { port: options.port ?? config.smtpPort, host: options.host ?? config.host, reusePort: config.smtp.reusePort };
    (server.listen as (address: object, ready: () => void) => void)(address, () => {
      server.server.off("error", reject);
      resolve((server.server.address() as { port: number }).port);
    });
  });
  log.info("smtp.listening", { port });
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
