// Reads delivery status notifications (RFC 3464) and feedback reports (RFC 5965): which recipient
// failed or complained, and which of our messages the report is about.

export type DeliveryStatus = { recipient: string; action: string; status: string; diagnostic: string | null; remoteMta: string | null };

/** Header fields of a header block (unfolded), names lower-cased; repeated fields keep the first. */
export function headerFields(block: string): Map<string, string> {
  const fields = new Map<string, string>();
  const unfolded = block.replace(/\r?\n[ \t]+/g, " ");
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
  }
  return fields;
}

/** The per-recipient blocks of a message/delivery-status body. */
export function parseDeliveryStatus(body: string): DeliveryStatus[] {
  const blocks = body.split(/\r?\n\s*\r?\n/).slice(1); // the first block describes the reporting MTA
  const statuses: DeliveryStatus[] = [];
  for (const block of blocks) {
    const fields = headerFields(block);
    const recipient = addressOf(fields.get("final-recipient") ?? fields.get("original-recipient"));
    if (!recipient) continue;
    statuses.push({
      recipient,
      action: (fields.get("action") ?? "").toLowerCase(),
      status: (fields.get("status") ?? "").split(/\s/)[0] ?? "",
      // `smtp; 550 5.1.1 user unknown`: what the remote server said, bounded (it is theirs to write)
      diagnostic:
        fields
          .get("diagnostic-code")
          ?.replace(/^[a-z0-9-]+\s*;\s*/i, "")
          .slice(0, 500) ?? null,
      remoteMta:
        fields
          .get("remote-mta")
          ?.replace(/^[a-z0-9-]+\s*;\s*/i, "")
          .slice(0, 255) ?? null,
    });
  }
  return statuses;
}

/** A permanent failure: Action failed with a 5.x.x status. */
export function isPermanentFailure(status: DeliveryStatus): boolean {
  return status.action === "failed" && status.status.startsWith("5");
}

export function parseFeedbackReport(body: string): { feedbackType: string; originalRcptTo: string | null } {
  const fields = headerFields(body);
  return {
    feedbackType: (fields.get("feedback-type") ?? "").toLowerCase(),
    originalRcptTo: addressOf(fields.get("original-rcpt-to")),
  };
}

/** `rfc822; user@example.com` or `<user@example.com>` → `user@example.com` */
export function addressOf(value: string | undefined): string | null {
  if (!value) return null;
  const bare = value
    .replace(/^[a-z0-9-]+\s*;/i, "")
    .trim()
    .replace(/^<|>$/g, "")
    .trim();
  return /^[^@\s]+@[^@\s]+$/.test(bare) ? bare.toLowerCase() : null;
}
