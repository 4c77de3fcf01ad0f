// Every environment variable the service reads, parsed and validated once.
// Nothing else in the code base reads process.env: pass a Config around instead.
import { isIP } from "node:net";
import { formatRange, parseRange } from "./ip-address.ts";
import type { LogLevel } from "./log.ts";

export type Role = "api" | "smtp" | "worker";
export type DeliveryTransportName = "local" | "smtp" | "mx";
export type AuthMode = "off" | "verify" | "trust";
export type SpamScannerName = "spamd" | "rspamd";

export type Config = {
  databaseUrl: string | null;
  /** A direct (session) connection for what needs one: the worker, LISTEN, migrations. Null: databaseUrl. */
  databaseDirectUrl: string | null;
  /** "transaction" when databaseUrl is a transaction-pooling PgBouncer: no prepared statements then. */
  databasePoolMode: "session" | "transaction";
  dataDir: string;
  embeddedPostgresPort: number;
  roles: Role[];
  host: string;
  httpPort: number;
  smtpPort: number;
  publicBaseUrl: string;
  sharedDomain: string;
  mxHost: string;
  dkimSelector: string;
  logLevel: LogLevel;
  /** Log each event-loop stall this long or longer (src/event-loop-stalls.ts); 0: off. */
  eventLoopStallLogMs: number;
  maxRequestBytes: number;
  /**
   * Outgoing attachments (docs/decisions.md, "Outgoing attachments"): the most bytes one draft's
   * files may add up to (each file included) and how many files it may carry.
   */
  attachments: { maxBytes: number; maxCount: number };
  /** Proxies whose X-Forwarded-For is believed, as canonical CIDR ranges ("10.0.0.0/8", "::1/128"). */
  trustedProxies: string[];
  dnsServers: string[];
  dnsTimeoutMs: number;
  freePlanMonthlyQuota: number;
  paidPlanMonthlyQuota: number;
  smtp: {
    hostname: string;
    maxMessageBytes: number;
    maxRecipients: number;
    maxConnections: number;
    /** Connections one client address (IPv6: one /64) may hold at once (smtp/fairness.ts). */
    maxConnectionsPerAddress: number;
    /** A session is closed (421) after this long, whatever it is doing. */
    maxSessionMs: number;
    /** A session is closed (421) after this many commands of any kind. */
    maxCommands: number;
    idleTimeoutMs: number;
    /** Pause before the 220 greeting; a client that talks during it is refused (421). */
    greetingDelayMs: number;
    tlsCertFile: string | null;
    tlsKeyFile: string | null;
    /** Bind SMTP_PORT with SO_REUSEPORT, so that several smtp processes on one host share it. */
    reusePort: boolean;
  };
  bodyCleanMaxChars: number;
  /** Budgets of attachment text extraction (src/mail/attachment-text.ts, docs/security.md). */
  attachmentReading: {
    maxBytes: number;
    timeoutMs: number;
    memoryBytes: number;
    maxInflatedBytes: number;
    maxPdfPages: number;
    maxImagePixels: number;
    concurrency: number;
  };
  /**
   * Per-key token bucket (src/request/rate-limit.ts); perSecond 0 turns it off. A key that comes
   * back before its Retry-After has its next 429 held refusalHoldMs (0: never), at most heldPerKey
   * at once (src/request/rate-limit-hold.ts).
   */
  rateLimit: { perSecond: number; burst: number; refusalHoldMs: number; heldPerKey: number };
  authMode: AuthMode;
  trustedAuthservIds: string[];
  deliveryTransport: DeliveryTransportName;
  smtpRelayUrl: string | null;
  /**
   * S3-compatible object storage for message content (src/core/blob-store.ts), or null: content
   * stays in PostgreSQL (the default). `http(s)://KEY:SECRET@host[:port]/bucket`, path-style.
   * bodyThreshold: a body (body_raw, body_clean) longer than this many UTF-8 bytes goes to the
   * store too, the row keeping that many bytes of it.
   */
  blobStore: { url: string; region: string; bodyThreshold: number } | null;
  deliveryTimeoutMs: number;
  /** Direct MX delivery may connect to loopback and private addresses (local tests only). */
  mxAllowPrivateNetworks: boolean;
  /** Direct MX delivery connects to this port (25; tests point it at a local sink). */
  mxPort: number;
  reconcileGraceSeconds: number;
  deliveryRetrySeconds: number;
  deliveryRetryLimit: number;
  unsubscribeSecret: string | null;
  workerConcurrency: number;
  /** Crash recovery (worker/liveness.ts): how often every worker sweeps, and how long a pool must stay gone. */
  workerRecovery: { sweepIntervalMs: number; deadAfterMs: number };
  webhook: {
    timeoutMs: number;
    retryScheduleSeconds: number[];
    allowPrivateNetworks: boolean;
    leaseGraceMs: number;
  };
  /** Frames a client sends on one WebSocket (src/http/socket-frames.ts). */
  eventSocket: { framesPerSecond: number; maxPendingFrames: number; maxFrameBytes: number };
  events: {
    retentionDays: number;
    heartbeatMs: number;
    /** bytes queued for one stream client beyond which it is disconnected */
    maxQueueBytes: number;
    /** how long a stream client may stay over maxQueueBytes before it is disconnected */
    stallMs: number;
    /** open streams (SSE and WebSocket) one key may hold in one API process (src/core/events/stream-slots.ts) */
    streamsPerKey: number;
    leaseSeconds: number;
  };
  screening: {
    clamdAddress: string | null;
    /** The edge spam scanner SPAM_SCANNER chose (null: none), with its address below. */
    spamScanner: SpamScannerName | null;
    spamdAddress: string | null;
    /** Rspamd's HTTP base URL (its normal worker or proxy, e.g. http://127.0.0.1:11333). */
    rspamdUrl: string | null;
    timeoutMs: number;
    spamModelPath: string | null;
    /** null: the shipped (or SPAM_MODEL_PATH) model's own threshold, chosen for <= 1% of ham flagged. */
    spamClassifierThreshold: number | null;
  };
  llm: {
    url: string | null;
    model: string | null;
    apiKey: string | null;
    timeoutMs: number;
  };
  /** Bearer token that opens GET /metrics; null: /metrics answers 404 like any unknown route. */
  metricsToken: string | null;
  /** Port on which a process without the api role serves /metrics; null: it serves none. */
  metricsPort: number | null;
  /** Service default for message retention in days; null keeps content forever. An account's own setting wins. */
  retentionDays: number | null;
};

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === "" ? fallback : value;
}

function blobStoreSetting(env: Env): Config["blobStore"] {
  // Checked even without a store, so a mistyped value is refused before the store is turned on.
  const bodyThreshold = integer(env, "BLOB_STORE_BODY_THRESHOLD", 65_536, 1_024, 64 * 1024 * 1024);
  const value = optionalText(env, "BLOB_STORE_URL");
  if (value === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError("BLOB_STORE_URL", "must be a URL like https://KEY:SECRET@host/bucket");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new ConfigError("BLOB_STORE_URL", "must start with http:// or https://");
  if (!parsed.username || !parsed.password) throw new ConfigError("BLOB_STORE_URL", "must carry the access key and secret (KEY:SECRET@)");
  if (!/^\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/?$/.test(parsed.pathname))
    throw new ConfigError("BLOB_STORE_URL", "must name one bucket as its path");
  return {
    url: value,
    region: text(env, "BLOB_STORE_REGION", "us-east-1"),
    bodyThreshold,
  };
}

function optionalText(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value === "" ? null : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = text(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got '${raw}'`);
  }
  return raw as T;
}

function list(env: Env, name: string, fallback: string): string[] {
  return text(env, name, fallback)
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function fraction(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(raw) || !(value > 0 && value <= 1))
    throw new ConfigError(name, `must be a number in (0, 1], got '${raw}'`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (/^(true|1|yes|on)$/i.test(raw)) return true;
  if (/^(false|0|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false, got '${raw}'`);
}

function secondsList(env: Env, name: string, fallback: string): number[] {
  const items = list(env, name, fallback);
  if (items.length === 0) throw new ConfigError(name, "must list at least one delay");
  return items.map((item) => {
    if (!/^\d+(\.\d+)?$/.test(item)) throw new ConfigError(name, `must be comma-separated seconds, got '${item}'`);
    return Number(item);
  });
}

// The contract (docs/webhooks.md) fixes 6 attempts (1 + 5 retries); only the delays are configurable.
function retrySchedule(env: Env, name: string): number[] {
  const delays = secondsList(env, name, "60,300,1800,7200,43200");
  if (delays.length !== 5) throw new ConfigError(name, `must list exactly 5 delays (one per retry), got ${delays.length}`);
  return delays;
}

function url(env: Env, name: string, fallback: string): string {
  const raw = text(env, name, fallback);
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
  } catch {
    throw new ConfigError(name, `must be an http(s) URL, got '${raw}'`);
  }
  return raw.replace(/\/+$/, "");
}

// SPAM_SCANNER names the edge spam scanner. Unset, it follows the address that is set, spamd
// first, so a deployment that set only SPAMD_ADDRESS before SPAM_SCANNER existed keeps spamd.
// Naming a scanner without its address is refused: it would silently scan nothing.
function spamScanner(env: Env): SpamScannerName | null {
  const spamd = optionalText(env, "SPAMD_ADDRESS");
  const rspamd = optionalText(env, "RSPAMD_URL");
  const fallback = spamd ? "spamd" : rspamd ? "rspamd" : "none";
  const chosen = oneOf(env, "SPAM_SCANNER", fallback, ["spamd", "rspamd", "none"] as const);
  if (chosen === "spamd" && !spamd) throw new ConfigError("SPAM_SCANNER", "is spamd but SPAMD_ADDRESS is not set");
  if (chosen === "rspamd" && !rspamd) throw new ConfigError("SPAM_SCANNER", "is rspamd but RSPAMD_URL is not set");
  return chosen === "none" ? null : chosen;
}

const hostnamePattern = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function hostname(env: Env, name: string, fallback: string): string {
  const raw = text(env, name, fallback).toLowerCase();
  if (!hostnamePattern.test(raw)) throw new ConfigError(name, `must be a host name, got '${raw}'`);
  return raw;
}

function listenHost(env: Env, name: string, fallback: string): string {
  const raw = text(env, name, fallback);
  if (isIP(raw.replace(/^\[|\]$/g, "")) === 0 && !hostnamePattern.test(raw.toLowerCase())) {
    throw new ConfigError(name, `must be an IP address or a host name, got '${raw}'`);
  }
  return raw;
}

function dnsServers(env: Env, name: string): string[] {
  const servers = list(env, name, "");
  for (const server of servers) {
    const match =
      /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(server) ?? /^([0-9.]+)(?::(\d+))?$/.exec(server) ?? /^([0-9a-fA-F:]+)()$/.exec(server);
    const port = match?.[2] ? Number(match[2]) : 53;
    if (!match || isIP(match[1]!) === 0 || port < 1 || port > 65535) {
      throw new ConfigError(name, `entries must be IP addresses with an optional port (1.2.3.4:53, [::1]:53), got '${server}'`);
    }
  }
  return servers;
}

function trustedProxies(env: Env, name: string): string[] {
  return list(env, name, "").map((item) => {
    const range = parseRange(item);
    if (range === "host_bits")
      throw new ConfigError(name, `entries must be network addresses: '${item}' has bits set after its prefix length`);
    if (range === null) {
      throw new ConfigError(name, `entries must be IP addresses or CIDR ranges (10.0.0.5, 10.0.0.0/8, fd00::/8), got '${item}'`);
    }
    return formatRange(range);
  });
}

export function loadConfig(env: Env = process.env): Config {
  const roles = list(env, "ROLES", "api,smtp,worker");
  for (const role of roles) {
    if (role !== "api" && role !== "smtp" && role !== "worker") {
      throw new ConfigError("ROLES", `may contain only api, smtp, worker; got '${role}'`);
    }
  }
  if (roles.length === 0) throw new ConfigError("ROLES", "must name at least one role");

  const sharedDomain = hostname(env, "SHARED_DOMAIN", "agents.localhost");
  const httpPort = integer(env, "HTTP_PORT", 3000, 0, 65535);
  const databaseUrl = optionalText(env, "DATABASE_URL");
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError("DATABASE_URL", "must be a postgres:// URL");
  }
  const relay = optionalText(env, "SMTP_RELAY_URL");
  const deliveryTransport = oneOf(env, "DELIVERY_TRANSPORT", "local", ["local", "smtp", "mx"] as const);
  if (deliveryTransport === "smtp" && relay === null) {
    throw new ConfigError("SMTP_RELAY_URL", "is required when DELIVERY_TRANSPORT=smtp");
  }

  return {
    databaseUrl,
    dataDir: text(env, "DATA_DIR", "./.data"),
    embeddedPostgresPort: integer(env, "EMBEDDED_PG_PORT", 5433, 1, 65535),
    roles: [...new Set(roles)] as Role[],
    host: listenHost(env, "HOST", "127.0.0.1"),
    httpPort,
    smtpPort: integer(env, "SMTP_PORT", 2525, 0, 65535),
    publicBaseUrl: url(env, "PUBLIC_BASE_URL", `http://localhost:${httpPort}`),
    sharedDomain,
    mxHost: hostname(env, "MX_HOST", `mx.${sharedDomain}`),
    dkimSelector: hostname(env, "DKIM_SELECTOR", "svc1"),
    logLevel: oneOf(env, "LOG_LEVEL", "info", ["debug", "info", "warn", "error", "silent"] as const),
    eventLoopStallLogMs: integer(env, "EVENT_LOOP_STALL_LOG_MS", 0, 0, 60_000),
    maxRequestBytes: integer(env, "MAX_REQUEST_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
    attachments: {
      // 18 MiB of files is about 24.3 MiB once base64-encoded in the message: under the 25 MiB most
      // receivers (Gmail, Outlook, SMTP SIZE defaults) accept.
      maxBytes: integer(env, "ATTACHMENT_MAX_BYTES", 18 * 1024 * 1024, 1, 64 * 1024 * 1024),
      maxCount: integer(env, "ATTACHMENT_MAX_COUNT", 20, 1, 100),
    },
    trustedProxies: trustedProxies(env, "TRUSTED_PROXIES"),
    dnsServers: dnsServers(env, "DNS_SERVERS"),
    dnsTimeoutMs: integer(env, "DNS_TIMEOUT_MS", 3000, 50, 60000),
    freePlanMonthlyQuota: integer(env, "FREE_PLAN_MONTHLY_QUOTA", 3000, 0, 1_000_000_000),
    paidPlanMonthlyQuota: integer(env, "PAID_PLAN_MONTHLY_QUOTA", 100_000, 0, 1_000_000_000),
    smtp: {
      hostname: hostname(env, "SMTP_HOSTNAME", `mx.${sharedDomain}`),
      maxMessageBytes: integer(env, "SMTP_MAX_MESSAGE_BYTES", 25 * 1024 * 1024, 1024, 200 * 1024 * 1024),
      maxRecipients: integer(env, "SMTP_MAX_RECIPIENTS", 50, 1, 1000),
      maxConnections: integer(env, "SMTP_MAX_CONNECTIONS", 200, 1, 100000),
      maxConnectionsPerAddress: integer(env, "SMTP_MAX_CONNECTIONS_PER_ADDRESS", 20, 1, 100000),
      maxSessionMs: integer(env, "SMTP_MAX_SESSION_S", 600, 1, 86_400) * 1000,
      maxCommands: integer(env, "SMTP_MAX_COMMANDS", 2000, 10, 1_000_000),
      idleTimeoutMs: integer(env, "SMTP_IDLE_TIMEOUT_S", 60, 1, 3600) * 1000,
      greetingDelayMs: integer(env, "SMTP_GREETING_DELAY_MS", 0, 0, 10_000),
      reusePort: boolean(env, "SMTP_REUSE_PORT", false),
      tlsCertFile: optionalText(env, "SMTP_TLS_CERT_FILE"),
      tlsKeyFile: optionalText(env, "SMTP_TLS_KEY_FILE"),
    },
    bodyCleanMaxChars: integer(env, "BODY_CLEAN_MAX_CHARS", 50_000, 100, 10_000_000),
    attachmentReading: {
      maxBytes: integer(env, "ATTACHMENT_READ_MAX_BYTES", 20 * 1024 * 1024, 1024, 200 * 1024 * 1024),
      timeoutMs: integer(env, "ATTACHMENT_READ_TIMEOUT_MS", 20_000, 100, 600_000),
      memoryBytes: integer(env, "ATTACHMENT_READ_MEMORY_MB", 1024, 512, 65_536) * 1024 * 1024,
      maxInflatedBytes: integer(env, "ATTACHMENT_READ_MAX_INFLATED_MB", 64, 1, 4096) * 1024 * 1024,
      maxPdfPages: integer(env, "ATTACHMENT_READ_MAX_PDF_PAGES", 2_000, 1, 1_000_000),
      maxImagePixels: integer(env, "ATTACHMENT_READ_MAX_IMAGE_PIXELS", 40_000_000, 10_000, 1_000_000_000),
      concurrency: integer(env, "ATTACHMENT_READERS", 2, 1, 64),
    },
    rateLimit: {
      perSecond: integer(env, "RATE_LIMIT_PER_SECOND", 100, 0, 1_000_000),
      burst: integer(env, "RATE_LIMIT_BURST", 2000, 1, 10_000_000),
      refusalHoldMs: integer(env, "RATE_LIMIT_REFUSAL_HOLD_MS", 250, 0, 1_000),
      heldPerKey: integer(env, "RATE_LIMIT_HELD_PER_KEY", 100, 1, 10_000),
    },
    authMode: oneOf(env, "INBOUND_AUTH_MODE", "verify", ["off", "verify", "trust"] as const),
    trustedAuthservIds: list(env, "TRUSTED_AUTHSERV_IDS", ""),
    deliveryTransport,
    smtpRelayUrl: relay,
    blobStore: blobStoreSetting(env),
    deliveryTimeoutMs: integer(env, "DELIVERY_TIMEOUT_MS", 30_000, 100, 600_000),
    mxAllowPrivateNetworks: boolean(env, "MX_DELIVERY_ALLOW_PRIVATE_NETWORKS", false),
    mxPort: integer(env, "MX_DELIVERY_PORT", 25, 1, 65535),
    reconcileGraceSeconds: integer(env, "RECONCILE_GRACE_S", 30, 0, 30 * 24 * 3600),
    deliveryRetrySeconds: integer(env, "DELIVERY_RETRY_S", 60, 0, 24 * 3600),
    deliveryRetryLimit: integer(env, "DELIVERY_RETRY_LIMIT", 5, 1, 100),
    unsubscribeSecret: optionalText(env, "UNSUBSCRIBE_SECRET"),
    workerConcurrency: integer(env, "WORKER_CONCURRENCY", 16, 1, 100),
    workerRecovery: {
      sweepIntervalMs: integer(env, "WORKER_SWEEP_INTERVAL_MS", 5_000, 100, 60_000),
      deadAfterMs: integer(env, "WORKER_DEAD_AFTER_MS", 15_000, 0, 300_000),
    },
    webhook: {
      timeoutMs: integer(env, "WEBHOOK_TIMEOUT_MS", 10_000, 100, 120_000),
      retryScheduleSeconds: retrySchedule(env, "WEBHOOK_RETRY_SCHEDULE"),
      allowPrivateNetworks: boolean(env, "WEBHOOK_ALLOW_PRIVATE_NETWORKS", false),
      leaseGraceMs: integer(env, "WEBHOOK_LEASE_GRACE_MS", 30_000, 0, 3_600_000),
    },
    eventSocket: {
      framesPerSecond: integer(env, "EVENT_SOCKET_FRAMES_PER_SECOND", 20, 1, 100_000),
      maxPendingFrames: integer(env, "EVENT_SOCKET_MAX_PENDING_FRAMES", 8, 1, 1000),
      maxFrameBytes: integer(env, "EVENT_SOCKET_MAX_FRAME_BYTES", 64 * 1024, 1024, 16 * 1024 * 1024),
    },
    events: {
      retentionDays: integer(env, "EVENT_RETENTION_DAYS", 30, 1, 3650),
      heartbeatMs: integer(env, "EVENT_HEARTBEAT_MS", 15_000, 100, 600_000),
      maxQueueBytes: integer(env, "EVENT_STREAM_MAX_QUEUE_BYTES", 1024 * 1024, 1024, 256 * 1024 * 1024),
      stallMs: integer(env, "EVENT_STREAM_STALL_MS", 10_000, 10, 600_000),
      streamsPerKey: integer(env, "EVENT_STREAMS_PER_KEY", 20, 1, 100_000),
      leaseSeconds: integer(env, "EVENT_LEASE_S", 60, 1, 24 * 3600),
    },
    screening: {
      clamdAddress: optionalText(env, "CLAMD_ADDRESS"),
      spamScanner: spamScanner(env),
      spamdAddress: optionalText(env, "SPAMD_ADDRESS"),
      rspamdUrl: env.RSPAMD_URL ? url(env, "RSPAMD_URL", "") : null,
      timeoutMs: integer(env, "SCANNER_TIMEOUT_MS", 30_000, 100, 600_000),
      spamModelPath: optionalText(env, "SPAM_MODEL_PATH"),
      spamClassifierThreshold: env.SPAM_CLASSIFIER_THRESHOLD ? fraction(env, "SPAM_CLASSIFIER_THRESHOLD", 0.9) : null,
    },
    llm: {
      url: optionalText(env, "COMPREHENSION_LLM_URL"),
      model: optionalText(env, "COMPREHENSION_LLM_MODEL"),
      apiKey: optionalText(env, "COMPREHENSION_LLM_KEY"),
      timeoutMs: integer(env, "COMPREHENSION_LLM_TIMEOUT_MS", 20_000, 100, 600_000),
    },
    metricsToken: optionalText(env, "METRICS_TOKEN"),
    metricsPort: env.METRICS_PORT ? integer(env, "METRICS_PORT", 0, 0, 65535) : null,
    databaseDirectUrl: optionalText(env, "DATABASE_DIRECT_URL"),
    databasePoolMode: oneOf(env, "DATABASE_POOL_MODE", "session", ["session", "transaction"] as const),
    retentionDays: env.RETENTION_DAYS ? integer(env, "RETENTION_DAYS", 0, 1, 36500) : null,
  };
}

/** For entry points: the config, or null after printing the one-line reason on stderr. */
export function loadConfigOrReport(env: Env = process.env): Config | null {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return null;
  }
}

/** The stdio MCP server's settings (src/mcp/stdio.ts): which running service to talk to, as whom. */
export type StdioConfig = { serviceUrl: string; apiKey: string };

export function loadStdioConfig(env: Env = process.env): StdioConfig {
  const apiKey = optionalText(env, "AGENT_MAILBOX_KEY");
  if (!apiKey) throw new ConfigError("AGENT_MAILBOX_KEY", "must be set to an api or mcp key (svc_...)");
  if (/\s/.test(apiKey)) throw new ConfigError("AGENT_MAILBOX_KEY", "must not contain spaces or line breaks");
  return { serviceUrl: url(env, "AGENT_MAILBOX_URL", "http://localhost:3000"), apiKey };
}
