import type { DeliveryTransport } from "../core/transport.ts";
import { makeSmtpPool } from "./smtp-pool.ts";
import type { SmtpSessionOptions, StartTlsPolicy } from "./smtp-session.ts";

type RelayConfig = Pick<SmtpSessionOptions, "host" | "port" | "secure" | "starttls" | "rejectUnauthorized" | "auth">;

/**
 * A transport that hands every message to one smarthost.
 *
 * `url` is `smtp://user:pass@host:port` (STARTTLS) or `smtps://...` (implicit TLS), with
 * optional `?tls=opportunistic|required` and `&rejectUnauthorized=false`. The default port is
 * 587 (smtp) or 465 (smtps); STARTTLS defaults to required when credentials are given and
 * opportunistic otherwise.
 */
export function makeSmtpRelayTransport(url: string, o: { ehloName: string; timeoutMs: number }): DeliveryTransport {
  const relay = parseRelayUrl(url);
  // Sessions to the relay are reused (smtp-pool.ts): one per concurrent send stays open while idle.
  const pool = makeSmtpPool(
    { ...relay, name: o.ehloName, connectionTimeoutMs: o.timeoutMs, greetingTimeoutMs: o.timeoutMs, socketTimeoutMs: o.timeoutMs },
    { maxIdle: RELAY_MAX_IDLE_SESSIONS, idleMs: RELAY_IDLE_MS },
  );
  return {
    name: "smtp-relay",
    async deliver(envelope, raw, meta) {
      const { outcome } = await pool.deliver(envelope, raw, meta);
      return outcome;
    },
    close: () => pool.close(),
  };
}

// Enough idle sessions for the sends the API and worker make at once; Postfix's smtpd keeps an idle
// client for 300 s by default, most relays for 60 s or more: quitting after 30 s stays inside that.
const RELAY_MAX_IDLE_SESSIONS = 10;
const RELAY_IDLE_MS = 30_000;

/** Throws on anything it does not understand: a typo in a relay URL must fail at start-up. */
export function parseRelayUrl(url: string): RelayConfig {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error("SMTP relay URL is not a valid URL");
  }
  if (u.protocol !== "smtp:" && u.protocol !== "smtps:") {
    throw new Error("SMTP relay URL must start with smtp:// or smtps://");
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!host) throw new Error("SMTP relay URL has no host");
  const secure = u.protocol === "smtps:";
  const port = u.port ? Number(u.port) : secure ? 465 : 587;
  const auth = u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : null;

  // With credentials, plain text is refused unless asked for: a password must not leak.
  let starttls: StartTlsPolicy = auth && !secure ? "required" : "opportunistic";
  let rejectUnauthorized = true;
  for (const [key, value] of u.searchParams) {
    if (key === "tls" && (value === "opportunistic" || value === "required")) starttls = value;
    else if (key === "rejectUnauthorized" && (value === "true" || value === "false")) rejectUnauthorized = value === "true";
    else throw new Error(`SMTP relay URL has an unknown option ${key}=${value}`);
  }
  return { host, port, secure, starttls, rejectUnauthorized, auth };
}
