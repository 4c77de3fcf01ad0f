// Inbound sender authentication (SPF, DKIM, DMARC): verified here with
// mailauth, or read from an Authentication-Results header written by an MTA
// we trust (RFC 8601), or not at all.
import { authenticate } from "mailauth";
import type { AuthMode } from "../config.ts";
import type { ResolveFn } from "./resolver.ts";

export type AuthVerdict = "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror";
export type AuthResults = { spf: AuthVerdict; dkim: AuthVerdict; dmarc: AuthVerdict };
export type DmarcPolicy = "reject" | "quarantine" | "none";
export type AuthOutcome = { results: AuthResults | null; dmarcPolicy: DmarcPolicy | null };

export type AuthInput = {
  raw: Buffer | Uint8Array;
  remoteIp: string;
  helo: string;
  mailFrom: string;
  mode: AuthMode;
  trustedAuthservIds: string[];
  resolver: ResolveFn;
  mtaHostname: string;
  // Upper bound for verify mode. DNS lookups run one after another (one per
  // DKIM signature, then SPF, then DMARC), so a message with many signatures
  // could otherwise hold an SMTP session for many resolver timeouts.
  deadlineMs?: number;
};

const VERDICTS = new Set<string>(["pass", "fail", "softfail", "neutral", "none", "temperror", "permerror"]);
const DEFAULT_DEADLINE_MS = 15_000;

// Never throws: whatever goes wrong becomes a verdict.
export async function authenticateInbound(input: AuthInput): Promise<AuthOutcome> {
  if (input.mode === "off") return { results: null, dmarcPolicy: null };
  if (input.mode === "trust") return trustedResults(headerSection(input.raw), input.trustedAuthservIds);
  return verify(input);
}

async function verify(input: AuthInput): Promise<AuthOutcome> {
  const deadline = Date.now() + (input.deadlineMs ?? DEFAULT_DEADLINE_MS);
  // Past the deadline every lookup fails at once as a timeout, so mailauth
  // finishes promptly with temperror rather than being abandoned mid-work.
  const resolver = (name: string, rrtype: string) =>
    Date.now() >= deadline
      ? Promise.reject(Object.assign(new Error(`deadline passed before ${rrtype} ${name}`), { code: "ETIMEOUT" }))
      : input.resolver(name, rrtype);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const backstop = new Promise<"deadline">((resolve) => {
    timer = setTimeout(() => resolve("deadline"), Math.max(0, deadline - Date.now()) + 1_000);
  });
  try {
    const result = await Promise.race([
      authenticate(Buffer.from(input.raw), {
        ip: input.remoteIp,
        helo: input.helo,
        sender: input.mailFrom,
        mta: input.mtaHostname,
        resolver,
        // We act on neither; each would add DNS lookups (BIMI always, ARC per seal).
        disableArc: true,
        disableBimi: true,
      }),
      backstop,
    ]);
    if (result === "deadline") return everything("temperror");
    return {
      results: {
        spf: result.spf ? toVerdict(result.spf.status?.result) : "none",
        dkim: dkimVerdict(result.dkim?.results ?? []),
        dmarc: dmarcVerdict(result.dmarc, result.dkim?.headerFrom),
      },
      dmarcPolicy: result.dmarc ? toPolicy(result.dmarc.policy) : null,
    };
  } catch {
    // mailauth throws only on input it cannot process at all, which retrying will not fix.
    return everything("permerror");
  } finally {
    clearTimeout(timer);
  }
}

function everything(verdict: AuthVerdict): AuthOutcome {
  return { results: { spf: verdict, dkim: verdict, dmarc: verdict }, dmarcPolicy: null };
}

function dkimVerdict(results: { status?: { result?: string; comment?: string } }[]): AuthVerdict {
  if (results.length === 0) return "none";
  if (results.some((r) => r.status?.result === "pass")) return "pass";
  const first = results[0].status;
  // mailauth reports a body hash mismatch as neutral; RFC 6376 §6.1.3 makes it
  // a failed verification (PERMFAIL), which RFC 8601 calls "fail".
  if (first?.result === "neutral" && /body hash did not verify/i.test(first.comment ?? "")) return "fail";
  return toVerdict(first?.result);
}

function dmarcVerdict(dmarc: any, headerFrom: string[] | undefined): AuthVerdict {
  if (dmarc) return toVerdict(dmarc.status?.result);
  // mailauth skips DMARC unless there is exactly one From address; several is
  // a known way to dodge DMARC, and RFC 7489 §6.6.1 lets us reject it.
  return (headerFrom?.length ?? 0) > 1 ? "permerror" : "none";
}

// "policy" (signature valid but unacceptable here, e.g. a weak key) means the
// message is not authenticated and will not be without the sender changing
// something: permerror. "hardfail" is the old spelling of fail (RFC 7001).
function toVerdict(value: unknown): AuthVerdict {
  const text = typeof value === "string" ? value.toLowerCase() : "";
  if (VERDICTS.has(text)) return text as AuthVerdict;
  if (text === "hardfail") return "fail";
  return text === "" ? "none" : "permerror";
}

function toPolicy(value: unknown): DmarcPolicy | null {
  const text = typeof value === "string" ? value.toLowerCase().trim() : "";
  return text === "reject" || text === "quarantine" || text === "none" ? text : null;
}

// ---- trust mode: RFC 8601 Authentication-Results written by a trusted MTA ----

function trustedResults(headers: string[], trustedIds: string[]): AuthOutcome {
  const trusted = new Set(trustedIds.map((id) => id.toLowerCase()));
  for (const header of headers) {
    const parsed = parseAuthenticationResults(header);
    // Only the topmost header from a trusted MTA counts: anything below it,
    // whatever authserv-id it claims, came from upstream and may be forged.
    if (!parsed || !trusted.has(parsed.authservId.toLowerCase())) continue;
    const dkim = parsed.results.filter((r) => r.method === "dkim").map((r) => r.result);
    const first = (method: string) => parsed.results.find((r) => r.method === method)?.result;
    return {
      results: {
        spf: toVerdict(first("spf")),
        dkim: dkim.includes("pass") ? "pass" : toVerdict(dkim[0]),
        dmarc: toVerdict(first("dmarc")),
      },
      dmarcPolicy: trustedDmarcPolicy(header),
    };
  }
  return { results: null, dmarcPolicy: null };
}

// RFC 8601 has no field for the published DMARC policy, but common verifiers write it in the
// dmarc result's comment (OpenDMARC, Gmail: "dmarc=fail (p=reject dis=none)") or as the
// policy.dmarc property; read it from the dmarc clause only.
function trustedDmarcPolicy(header: string): DmarcPolicy | null {
  const clause = header.split(";").find((part) => /^\s*dmarc\s*=/i.test(part));
  const match = clause ? /\b(?:policy\.dmarc|p)\s*=\s*(reject|quarantine|none)\b/i.exec(clause) : null;
  return match ? (match[1]!.toLowerCase() as DmarcPolicy) : null;
}

// The values of every Authentication-Results header, topmost first. Only the header section is
// decoded: the body may be megabytes.
function headerSection(raw: Buffer | Uint8Array): string[] {
  const text = new TextDecoder("utf-8").decode(raw.subarray(0, headerEnd(raw)));
  const unfolded = text.replace(/\r?\n(?=[ \t])/g, "");
  return unfolded
    .split(/\r?\n/)
    .filter((line) => /^authentication-results\s*:/i.test(line))
    .map((line) => line.slice(line.indexOf(":") + 1));
}

// Where the first empty line (LF LF, CRLF CRLF or a mix) starts, or the length when there is none.
function headerEnd(raw: Uint8Array): number {
  for (let i = raw.indexOf(10); i >= 0; i = raw.indexOf(10, i + 1)) {
    const next = raw[i + 1] === 13 ? i + 2 : i + 1;
    if (raw[next] === 10) return i > 0 && raw[i - 1] === 13 ? i - 1 : i;
  }
  return raw.length;
}

type ParsedAuthResults = { authservId: string; results: { method: string; result: string }[] };

export function parseAuthenticationResults(value: string): ParsedAuthResults | null {
  const parts = splitOutsideQuotes(stripComments(value), ";");
  // authserv-id may be followed by a version number (RFC 8601 §2.2).
  const idMatch = /^\s*("([^"]*)"|[^\s;"]+)/.exec(parts[0] ?? "");
  if (!idMatch) return null;
  const authservId = idMatch[2] ?? idMatch[1];
  const results: { method: string; result: string }[] = [];
  for (const part of parts.slice(1)) {
    const match = /^\s*([a-z0-9_-]+)(?:\s*\/\s*\d+)?\s*=\s*([a-z0-9_-]+)/i.exec(part);
    if (match) results.push({ method: match[1].toLowerCase(), result: match[2].toLowerCase() });
  }
  return { authservId, results };
}

// RFC 5322 comments nest and may appear between any tokens; quoted strings keep parentheses.
function stripComments(value: string): string {
  let out = "";
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "\\" && (quoted || depth > 0)) {
      if (depth === 0) out += c + (value[i + 1] ?? "");
      i++;
    } else if (quoted) {
      out += c;
      if (c === '"') quoted = false;
    } else if (c === "(") {
      depth++;
    } else if (c === ")" && depth > 0) {
      depth--;
      if (depth === 0) out += " ";
    } else if (depth === 0) {
      if (c === '"') quoted = true;
      out += c;
    }
  }
  return out;
}

function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (const c of value) {
    if (c === '"') quoted = !quoted;
    if (c === separator && !quoted) {
      parts.push(current);
      current = "";
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}
