// What screening derives from a stored message: the edge spam verdict and the comprehension
// engine's input.
import type { Config } from "../../config.ts";
import type { AuthOutcome } from "../../mail/authenticate.ts";

/**
 * The edge verdict that needs no scanner: a spam flag written by an upstream relay we trust (only
 * in trust mode: anyone else's header may be forged), or a DMARC failure under a reject policy.
 */
export function edgeSpamVerdict(values: Record<string, string>, auth: AuthOutcome, config: Config): boolean {
  if (auth.results?.dmarc === "fail" && auth.dmarcPolicy === "reject") return true;
  if (config.authMode !== "trust") return false;
  return /^\s*yes\b/i.test(values["x-spam-flag"] ?? "") || /^\s*yes\b/i.test(values["x-spam-status"] ?? "");
}

export function comprehensionInput(
  message: { subject: string; from_addr: string; body_clean: string | null; extraction_schema: Record<string, unknown> | null },
  headers: Record<string, string>,
  attachments: { filename: string | null; content_type: string }[],
) {
  const contentTypes = [
    ...(headers["content-type"] ? [headers["content-type"].split(";")[0]!.trim().toLowerCase()] : []),
    ...attachments.map((attachment) => attachment.content_type.toLowerCase()),
  ];
  return {
    subject: message.subject,
    fromAddr: message.from_addr,
    bodyClean: message.body_clean ?? "",
    headers,
    attachments: attachments.map((attachment) => ({ filename: attachment.filename, contentType: attachment.content_type })),
    contentTypes,
    schema: message.extraction_schema ?? null,
  };
}
