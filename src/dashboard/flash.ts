// After an action the browser is redirected with `?done=<name>`; the page shows the fixed text
// for that name. Only names listed here render, so the query string cannot inject text.
import type { Notice } from "./layout.ts";

const texts = {
  key_revoked: "The key was revoked. Requests with it now get 401.",
  key_already_revoked: "That key was already revoked.",
  entry_added: "The entry was added.",
  entry_removed: "The entry was removed.",
  draft_rejected: "The draft was rejected. It will not be sent.",
  mailbox_updated: "The mailbox settings were saved.",
  webhook_disabled: "The webhook was disabled. No events are sent until a URL is set again.",
  webhook_not_configured: "No webhook is configured.",
  webhook_events_saved: "The webhook's event types were saved; they apply to events from now on.",
  person_removed: "The person was removed; their sessions ended.",
  person_updated: "Saved: who gets an email when a draft waits for approval.",
  password_changed: "Your password was changed. Every other session of yours was signed out.",
  schema_created: "The extraction schema was created.",
  schema_attached: "The mailbox's extraction schema was saved; it applies to mail that arrives from now on.",
  labels_saved: "The labels were saved.",
  redriven: "The delivery was redriven: the same event goes out again with a fresh cycle of attempts.",
} as const;

export type FlashName = keyof typeof texts;

export function flash(url: URL): Notice | null {
  const name = url.searchParams.get("done");
  return name && Object.hasOwn(texts, name) ? { kind: "ok", text: texts[name as FlashName] } : null;
}

export function doneUrl(path: string, name: FlashName): string {
  return `${path}?done=${name}`;
}
