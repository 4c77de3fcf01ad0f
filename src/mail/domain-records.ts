// The DNS records a custom domain must publish, and the check that they are
// there. The check answers "would mail work as we intend", not "is the text
// byte-identical": a customer may merge our SPF term into an existing record.
import { spf } from "mailauth";
import type { ResolveFn } from "./resolver.ts";

export type DnsRecordPurpose = "inbound" | "spf" | "dkim" | "dmarc";
export type DnsRecord = {
  type: "MX" | "TXT";
  name: string;
  value: string;
  priority?: number;
  purpose: DnsRecordPurpose;
};
export type DnsCheck = { purpose: DnsRecordPurpose; name: string; found: boolean; detail?: string };
export type DnsCheckResult = { allFound: boolean; checks: DnsCheck[] };

export function requiredDnsRecords(domain: string, o: { mxHost: string; dkimSelector: string; dkimPublicKey: string }): DnsRecord[] {
  return [
    { type: "MX", name: domain, value: o.mxHost, priority: 10, purpose: "inbound" },
    // Our MX host is also the host we send from, so `a:` of it covers outbound.
    { type: "TXT", name: domain, value: `v=spf1 a:${o.mxHost} ~all`, purpose: "spf" },
    {
      type: "TXT",
      name: `${o.dkimSelector}._domainkey.${domain}`,
      value: `v=DKIM1; k=rsa; p=${o.dkimPublicKey}`,
      purpose: "dkim",
    },
    { type: "TXT", name: `_dmarc.${domain}`, value: "v=DMARC1; p=quarantine; adkim=r; aspf=r", purpose: "dmarc" },
  ];
}

// Lower-cased LDH labels; the route lower-cases and trims input first (normalizeDomainName).
export function isValidDomainName(name: string): boolean {
  if (typeof name !== "string" || name.length === 0 || name.length > 253) return false;
  const labels = name.split(".");
  if (labels.length < 2) return false;
  const ldh = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
  if (!labels.every((label) => ldh.test(label))) return false;
  return !/^[0-9]+$/.test(labels[labels.length - 1]); // else it could be an IPv4 address
}

export function normalizeDomainName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}

// Never throws: a DNS failure is "not found" with the reason in detail.
export async function checkDnsRecords(resolve: ResolveFn, records: DnsRecord[]): Promise<DnsCheckResult> {
  const evaluateSpf: SpfFn = (domain, ip, mxHost) => spfResult(resolve, domain, ip, mxHost);
  const cache = new Map<string, Promise<Lookup>>();
  const lookup = (name: string, type: "MX" | "TXT" | "A" | "AAAA"): Promise<Lookup> => {
    const key = `${sameHost(name)}|${type}`;
    if (!cache.has(key)) {
      cache.set(
        key,
        resolve(name, type).then(
          (answers): Lookup => ({ ok: true, answers }),
          (error): Lookup => ({ ok: false, error: describeError(error, type) }),
        ),
      );
    }
    return cache.get(key)!;
  };
  const mxHost =
    records.find((r) => r.purpose === "inbound")?.value ??
    /\ba:([^\s/]+)/i.exec(records.find((r) => r.purpose === "spf")?.value ?? "")?.[1] ??
    "";
  const checks = await Promise.all(
    records.map(async (record): Promise<DnsCheck> => {
      const outcome = await CHECKS[record.purpose](record, mxHost, lookup, evaluateSpf);
      const check: DnsCheck = { purpose: record.purpose, name: record.name, found: outcome.found };
      if (outcome.detail) check.detail = outcome.detail;
      return check;
    }),
  );
  return { allFound: checks.every((c) => c.found), checks };
}

type Lookup = { ok: true; answers: any[] } | { ok: false; error: string };
type LookupFn = (name: string, type: "MX" | "TXT" | "A" | "AAAA") => Promise<Lookup>;
type Outcome = { found: boolean; detail?: string };
type SpfFn = (domain: string, ip: string, mxHost: string) => Promise<{ result: string; comment?: string }>;

const CHECKS: Record<DnsRecordPurpose, (record: DnsRecord, mxHost: string, lookup: LookupFn, spf: SpfFn) => Promise<Outcome>> = {
  inbound: async (record, _mxHost, lookup) => {
    const mx = await lookup(record.name, "MX");
    if (!mx.ok) return { found: false, detail: mx.error };
    if (pointsTo(mx.answers, record.value)) return { found: true };
    const seen = mx.answers.map((a) => a.exchange).join(", ");
    return { found: false, detail: `MX points to ${seen}, not ${record.value}` };
  },

  spf: async (record, mxHost, lookup, evaluate) => {
    const txt = await lookup(record.name, "TXT");
    if (!txt.ok) return { found: false, detail: txt.error };
    const spfRecords = txt.answers.map(joinChunks).filter((t) => /^v=spf1(\s|$)/i.test(t));
    if (spfRecords.length === 0) return { found: false, detail: "no v=spf1 TXT record" };
    // RFC 7208 §4.5: more than one SPF record is a permerror for every receiver.
    if (spfRecords.length > 1) return { found: false, detail: "more than one v=spf1 TXT record" };
    // We send from our MX host: every address it has must pass, since any of them may be the one
    // a receiver sees. The evaluation is a receiver's (mailauth): include, redirect, a, mx, ip4,
    // ip6, exists, macros, and the 10-lookup and 2-void-lookup limits.
    const [v4, v6] = await Promise.all([lookup(mxHost, "A"), lookup(mxHost, "AAAA")]);
    const addresses = [...(v4.ok ? v4.answers : []), ...(v6.ok ? v6.answers : [])] as string[];
    if (addresses.length === 0) return { found: false, detail: `${mxHost} has no address to check SPF for` };
    for (const ip of addresses) {
      const verdict = await evaluate(record.name, ip, mxHost);
      if (verdict.result !== "pass") {
        return { found: false, detail: `SPF record does not authorize ${mxHost} (${ip}: ${verdict.result})` };
      }
    }
    return { found: true };
  },

  dkim: async (record, _mxHost, lookup) => {
    const txt = await lookup(record.name, "TXT");
    if (!txt.ok) return { found: false, detail: txt.error };
    const wanted = tagValue(record.value, "p");
    if (wanted && txt.answers.some((answer) => tagValue(joinChunks(answer), "p") === wanted)) return { found: true };
    return { found: false, detail: "no TXT record with our DKIM public key (p=)" };
  },

  dmarc: async (record, _mxHost, lookup) => {
    const txt = await lookup(record.name, "TXT");
    if (!txt.ok) return { found: false, detail: txt.error };
    if (txt.answers.some((answer) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(joinChunks(answer)))) return { found: true };
    return { found: false, detail: "no v=DMARC1 TXT record" };
  },
};

// Evaluated for postmaster@domain, as a receiver evaluates a bounce or a message from that domain.
async function spfResult(resolve: ResolveFn, domain: string, ip: string, mxHost: string): Promise<{ result: string; comment?: string }> {
  const verdict = await spf({ sender: `postmaster@${domain}`, ip, helo: mxHost, mta: mxHost, resolver: resolve });
  return { result: verdict.status.result, comment: verdict.status.comment };
}

function pointsTo(mxAnswers: { exchange: string }[], host: string): boolean {
  return mxAnswers.some((answer) => sameHost(answer.exchange) === sameHost(host));
}

function sameHost(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}

function joinChunks(answer: string[] | string): string {
  return (Array.isArray(answer) ? answer.join("") : answer).trim();
}

// Tag=value lists (RFC 6376 §3.2); base64 values may carry folding whitespace.
function tagValue(text: string, tag: string): string | undefined {
  for (const part of text.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim().toLowerCase() === tag) return part.slice(at + 1).replace(/\s+/g, "");
  }
  return undefined;
}

function describeError(error: any, type: string): string {
  switch (error?.code) {
    case "ENOTFOUND":
      return "ENOTFOUND: the name does not exist in DNS";
    case "ENODATA":
      return `ENODATA: no ${type} records`;
    case "ETIMEOUT":
      return "ETIMEOUT: DNS servers did not answer in time";
    default:
      return `${error?.code ?? "ERROR"}: DNS lookup failed`;
  }
}
