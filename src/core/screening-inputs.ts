// What screening reads from a parsed message: the header values as plain strings, the edge
// spam verdict, and the comprehension engine's input.
import type { Config } from "../config.ts";
import type { AuthOutcome } from "../mail/authenticate.ts";
import type { ParsedInbound } from "../mail/parse.ts";

/** mailparser's header map holds strings, address objects and structured values; flatten them. */
export function headerStrings(headers: Map<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const first = Array.isArray(value) ? value[0] : value;
    let text: string;
    if (typeof first === "string") text = first;
    else if (first && typeof first === "object" && "text" in first) text = String((first as { text: unknown }).text);
    else if (first && typeof first === "object" && "value" in first) {
      const params = (first as { params?: Record<string, string> }).params ?? {};
      text = [String((first as { value: unknown }).value), ...Object.entries(params).map(([k, v]) => `${k}=${v}`)].join("; ");
    } else if (first instanceof Date) text = first.toISOString();
    else text = String(first ?? "");
    out[name.toLowerCase()] = text.slice(0, 2000);
  }
  return out;
}

/**
 * The edge verdict that needs no scanner: a spam flag written by an upstream relay we trust (only
 * in trust mode: anyone else's header may be forged), or a DMARC failure under a reject policy.
 */
export function edgeSpamVerdict(headers: Map<string, unknown>, auth: AuthOutcome, config: Config): boolean {
  if (auth.results?.dmarc === "fail" && auth.dmarcPolicy === "reject") return true;
  if (config.authMode !== "trust") return false;
  const values = headerStrings(headers);
  return /^\s*yes\b/i.test(values["x-spam-flag"] ?? "") || /^\s*yes\b/i.test(values["x-spam-status"] ?? "");
}

export function comprehensionInput(
  message: { subject: string; from_addr: string; body_clean: string | null; extraction_schema: Record<string, unknown> | null },
  parsed: ParsedInbound,
) {
  const headers = headerStrings(parsed.headers);
  const contentTypes = [
    ...(headers["content-type"] ? [headers["content-type"].split(";")[0]!.trim().toLowerCase()] : []),
    ...parsed.attachments.map((attachment) => attachment.contentType.toLowerCase()),
  ];
  return {
    subject: message.subject,
    fromAddr: message.from_addr,
    bodyClean: message.body_clean ?? "",
    headers,
    attachments: parsed.attachments.map((attachment) => ({ filename: attachment.filename, contentType: attachment.contentType })),
    contentTypes,
    schema: message.extraction_schema ?? null,
  };
}
