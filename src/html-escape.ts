// The one HTML escaper for the pages we render (the dashboard, /docs, the unsubscribe page). It
// escapes quotes and the backtick too, so a value is safe in text and in any quoted attribute.
// (src/mail/sanitize/serialize-visible.ts keeps its own: it writes markup for the text converter, not a page.)

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (char) => ENTITIES[char]!);
}
