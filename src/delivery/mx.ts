import { isIP } from "node:net";
import type { DeliveryEnvelope, DeliveryMeta, DeliveryOutcome, DeliveryTransport } from "../core/transport.ts";
import { describeKind, readHostAddress, refusalOf } from "../ip-address.ts";
import { domainOf } from "../mail/address.ts";
import type { ResolveFn } from "../mail/resolver.ts";
import { makeSmtpPool, type SmtpPool } from "./smtp-pool.ts";
import type { SmtpSessionOptions } from "./smtp-session.ts";

export type MxTransportOptions = {
  resolve: ResolveFn;
  /** Default 25; tests point it at a local sink. */
  port?: number;
  ehloName: string;
  /** Per DNS query and per SMTP connection phase. */
  timeoutMs: number;
  /**
   * Whether an MX may resolve to loopback and private addresses (local tests). Link-local,
   * metadata and other special addresses are refused regardless.
   */
  allowPrivateNetworks: boolean;
};

// Postfix's smtp_mx_address_limit: enough for primary and backups, bounded for a slow sender.
const MAX_ATTEMPTS = 5;

// Sessions to each mail server are reused like the relay's (smtp-pool.ts, with its never-twice
// rule): agents write to the same few providers again and again. Postfix keeps a session for 300 s
// but most receivers end an idle one sooner; a few per server and a bound on servers keep what
// is held small. The pool keyed longest unused goes first when the bound is reached.
const MX_IDLE_PER_SERVER = 2;
const MX_IDLE_MS = 20_000;
const MX_SERVERS_KEPT = 100;

type Lookup<T> = { ok: true; value: T } | { ok: false; outcome: DeliveryOutcome };

/**
 * Delivers straight to the recipient domain's mail servers (RFC 5321 §5): MX hosts in
 * priority order, the domain itself when it has no MX, opportunistic STARTTLS without
 * certificate checks (as MTAs do; there is no trusted name to check against without
 * MTA-STS or DANE). A recipient domain chooses where its MX points, so every address is judged
 * before we connect: loopback, private, link-local and metadata addresses are refused (src/ip-address.ts),
 * else a custom domain could turn our outbound SMTP into a probe of the operator's network.
 */
export function makeMxTransport(o: MxTransportOptions): DeliveryTransport {
  const resolve = withTimeout(o.resolve, o.timeoutMs);
  const port = o.port ?? 25;
  // By address, port, TLS policy and SNI name: a session is only reused for what opened it.
  const pools = new Map<string, SmtpPool>();
  const poolFor = (session: SmtpSessionOptions): SmtpPool => {
    const key = `${session.host}|${session.port}|${session.starttls}|${session.servername ?? ""}`;
    let pool = pools.get(key);
    if (pool) {
      pools.delete(key); // re-inserted below: the Map's order is least recently used first
    } else {
      pool = makeSmtpPool(session, { maxIdle: MX_IDLE_PER_SERVER, idleMs: MX_IDLE_MS });
      if (pools.size >= MX_SERVERS_KEPT) {
        const [oldestKey, oldest] = pools.entries().next().value!;
        pools.delete(oldestKey);
        void oldest.close();
      }
    }
    pools.set(key, pool);
    return pool;
  };

  const attempt = (
    ip: string,
    host: string,
    starttls: "opportunistic" | "off",
    envelope: DeliveryEnvelope,
    raw: Uint8Array,
    meta: DeliveryMeta,
  ) => {
    const session: SmtpSessionOptions = {
      host: ip,
      port,
      starttls,
      rejectUnauthorized: false,
      servername: isIP(host) ? undefined : host,
      name: o.ehloName,
      connectionTimeoutMs: o.timeoutMs,
      greetingTimeoutMs: o.timeoutMs,
      socketTimeoutMs: o.timeoutMs,
    };
    return poolFor(session).deliver(envelope, raw, meta);
  };

  return {
    name: "mx",
    async deliver(envelope, raw, meta) {
      const domain = domainOf(envelope.to);
      const hosts = await mailHosts(domain, resolve);
      if (!hosts.ok) return hosts.outcome;

      let attempts = 0;
      let last: DeliveryOutcome | null = null;
      for (const host of hosts.value) {
        const ips = await addressesOf(host, resolve);
        if (!ips.ok) {
          last = keepTransient(last, ips.outcome);
          continue;
        }
        const usable = ips.value.filter((ip) => !refusedAddress(ip, o.allowPrivateNetworks));
        if (usable.length === 0) {
          const ip = ips.value[0]!;
          last = keepTransient(last, permanent(`${host}: refused, ${ip} is ${describeKind(refusedAddress(ip, o.allowPrivateNetworks)!)}`));
          continue;
        }
        for (const ip of usable) {
          if (attempts++ >= MAX_ATTEMPTS) return last ?? transient(`${domain}: no mail server reachable`);
          let r = await attempt(ip, host, "opportunistic", envelope, raw, meta);
          // A broken TLS stack is common on small MTAs; like Postfix, fall back to plain text.
          if (r.outcome.kind === "transient" && r.stage === "starttls") {
            r = await attempt(ip, host, "off", envelope, raw, meta);
          }
          // Only a transient failure may move on: a permanent answer is the domain's verdict,
          // and an unknown outcome may already be a delivered message.
          if (r.outcome.kind !== "transient") return r.outcome;
          last = r.outcome;
        }
      }
      return last ?? transient(`${domain}: no mail server reachable`);
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}

/** MX hosts by preference, or the domain itself as implicit MX (RFC 5321 §5.1). */
async function mailHosts(domain: string, resolve: ResolveFn): Promise<Lookup<string[]>> {
  let records: { exchange: string; priority: number }[];
  try {
    records = await resolve(domain, "MX");
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENODATA") return { ok: true, value: [domain] };
    if (code === "ENOTFOUND") return { ok: false, outcome: permanent(`${domain}: domain does not exist`) };
    return { ok: false, outcome: transient(`${domain}: MX lookup failed (${code ?? "error"})`) };
  }
  if (!records.length) return { ok: true, value: [domain] };
  // RFC 7505: a null MX ("." or, as node reports it, "") says the domain takes no mail.
  if (records.some((r) => r.exchange === "" || r.exchange === ".")) {
    return { ok: false, outcome: permanent(`${domain}: domain does not accept mail (null MX)`) };
  }
  const hosts = shuffle(records)
    .sort((a, b) => a.priority - b.priority)
    .map((r) => r.exchange.replace(/\.$/, "").toLowerCase());
  return { ok: true, value: [...new Set(hosts)] };
}

/** IPv4 first: an IPv6 route is the likelier one to be missing on a server. */
async function addressesOf(host: string, resolve: ResolveFn): Promise<Lookup<string[]>> {
  if (isIP(host)) return { ok: true, value: [host] };
  const [v4, v6] = await Promise.allSettled([resolve(host, "A"), resolve(host, "AAAA")]);
  const ips = [v4, v6].flatMap((r) => (r.status === "fulfilled" ? (r.value as string[]) : []));
  if (ips.length) return { ok: true, value: ips };
  const codes = [v4, v6].map((r) => (r.status === "rejected" ? (r.reason as { code?: string }).code : "ENODATA"));
  if (codes.every((c) => c === "ENODATA" || c === "ENOTFOUND")) {
    return { ok: false, outcome: permanent(`${host}: mail server has no address`) };
  }
  return { ok: false, outcome: transient(`${host}: address lookup failed (${codes.join(", ")})`) };
}

/** The kind of address we must not connect to, or null; anything that is not an address is refused. */
function refusedAddress(ip: string, allowPrivate: boolean) {
  const read = readHostAddress(ip);
  if (!read?.canonical) return "reserved" as const;
  return refusalOf(read.address, allowPrivate);
}

/** Across hosts a transient failure wins: some other server might still take the message. */
function keepTransient(prev: DeliveryOutcome | null, next: DeliveryOutcome): DeliveryOutcome {
  return prev?.kind === "transient" ? prev : next;
}

function withTimeout(resolve: ResolveFn, ms: number): ResolveFn {
  return (name, rrtype) =>
    new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(Object.assign(new Error(`DNS ${rrtype} ${name} timed out`), { code: "ETIMEOUT" })), ms);
      resolve(name, rrtype).then(
        (v) => (clearTimeout(timer), ok(v)),
        (e) => (clearTimeout(timer), fail(e)),
      );
    });
}

function shuffle<T>(items: T[]): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const permanent = (error: string): DeliveryOutcome => ({ kind: "permanent", error });
const transient = (error: string): DeliveryOutcome => ({ kind: "transient", error });
