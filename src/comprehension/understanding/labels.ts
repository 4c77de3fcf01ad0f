// The fixed set of classification labels. It is part of the contract an agent programs
// against (webhook `classification`, list item `comprehension.classification`), so labels are
// only ever added, never renamed. Receipts and shipping stay apart, as do codes, sign-in links
// and password resets: an agent acts differently on each.

export const LABELS = [
  { label: "personal", description: "a person writing to you directly, conversational, not about a product or service" },
  {
    label: "support_request",
    description: "someone asking for help with a problem: something broken, an error, an account they cannot use",
  },
  { label: "sales_inquiry", description: "a prospect asking about pricing, a quote, a demo, plans or buying" },
  { label: "transactional_receipt", description: "a receipt, invoice, payment or order confirmation with amounts or an order number" },
  { label: "shipping", description: "shipment and delivery updates: shipped, out for delivery, delivered, tracking numbers" },
  { label: "verification_code", description: "a one-time code (OTP, 2FA, confirmation code) to type in somewhere" },
  { label: "sign_in_link", description: "a magic link or button that signs you in or confirms an email address" },
  { label: "password_reset", description: "a password reset request or its link" },
  { label: "notification", description: "an automated alert or update from a service: mentions, comments, security alerts, reminders" },
  { label: "newsletter", description: "editorial content sent to a list: issues, digests, articles" },
  { label: "marketing", description: "promotional bulk mail: sales, discounts, offers, product announcements" },
  { label: "auto_reply", description: "an automatic reply: out of office, vacation responder, ticket acknowledgement" },
  { label: "bounce", description: "a delivery failure report for mail that was sent from this mailbox" },
  { label: "calendar", description: "a meeting invitation, update, cancellation or response (iCalendar)" },
  { label: "other", description: "none of the above with enough confidence" },
] as const;

export type Label = (typeof LABELS)[number]["label"];

export const LABEL_NAMES: readonly Label[] = LABELS.map((l) => l.label);

const NAME_SET: ReadonlySet<string> = new Set(LABEL_NAMES);

export function isLabel(value: unknown): value is Label {
  return typeof value === "string" && NAME_SET.has(value);
}
