// Rspamd over its HTTP protocol (POST /checkv2 on the normal worker or the proxy): the edge spam
// verdict for a raw message, in the same shape spamd gives.
//
// What counts as spam: Rspamd's own action, not a score comparison. Its answer carries the score
// and `required_score`, but `required_score` is the *reject* threshold (15 by default), while
// Rspamd already calls mail spam at `add header` (6 by default: the X-Spam flag, the Junk folder)
// and at `rewrite subject`. Comparing the score with required_score would pass most of what an
// Rspamd deployment files as spam; following the action honours whatever thresholds the operator
// set in Rspamd's actions.conf. `greylist` and `soft reject` are "retry later", not a verdict:
// the mail is delivered normally once the sender retries, so they count as not spam.
import type { SpamdVerdict } from "./spamd.ts";

/** Rspamd's verdict: spamd's shape plus the action it chose, which decided `spam`. */
export type RspamdVerdict = SpamdVerdict & { action: string };

/** The SMTP facts Rspamd scores (SPF, HELO and sender checks); each is sent only when known. */
export type RspamdEnvelope = {
  /** MAIL FROM */
  from?: string | null;
  rcpt?: string | null;
  ip?: string | null;
  helo?: string | null;
  /** the client's verified reverse-DNS name; without it Rspamd looks the PTR up itself */
  hostname?: string | null;
  /** our message id, so Rspamd's log lines can be matched to ours */
  queueId?: string | null;
};

const SPAM_ACTIONS = new Set(["reject", "add header", "rewrite subject"]);

// Header values go on an HTTP request line by line: a CR or LF from the envelope must not
// start a header of its own, and fetch refuses them anyway (better an omitted fact than a throw).
function headerSafe(value: string | null | undefined): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 998 && !/[\r\n\0]/.test(value);
}

function envelopeHeaders(envelope: RspamdEnvelope): Headers {
  const headers = new Headers({ "Content-Type": "message/rfc822" });
  const facts: [string, string | null | undefined][] = [
    ["From", envelope.from],
    ["Rcpt", envelope.rcpt],
    ["IP", envelope.ip],
    ["Helo", envelope.helo],
    ["Hostname", envelope.hostname],
    ["Queue-Id", envelope.queueId],
  ];
  for (const [name, value] of facts) if (headerSafe(value)) headers.set(name, value);
  return headers;
}

/** The scan endpoint under a base URL ("http://127.0.0.1:11333" or with a path prefix). */
export function checkUrl(base: string): URL {
  const url = new URL(base);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return new URL("checkv2", url);
}

export async function checkWithRspamd(
  baseUrl: string,
  raw: Uint8Array,
  timeoutMs: number,
  envelope: RspamdEnvelope = {},
): Promise<RspamdVerdict> {
  let response: Response;
  try {
    response = await fetch(checkUrl(baseUrl), {
      method: "POST",
      headers: envelopeHeaders(envelope),
      // Our raw bytes never sit on a SharedArrayBuffer, which is all the cast rules out.
      body: raw as Uint8Array<ArrayBuffer>,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    throw new Error(`rspamd: ${(error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`rspamd: HTTP ${response.status} ${text.slice(0, 200)}`);
  let reply: Record<string, unknown>;
  try {
    reply = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error("rspamd: reply is not JSON");
  }
  // A task Rspamd could not process answers 200 with an error field and no action.
  if (typeof reply.error === "string") throw new Error(`rspamd: ${reply.error}`);
  const { action, score, required_score: threshold } = reply;
  if (typeof action !== "string" || typeof score !== "number" || typeof threshold !== "number") {
    throw new Error("rspamd: reply without action, score and required_score");
  }
  return { spam: SPAM_ACTIONS.has(action), score, threshold, action };
}
