// The one HTML escaper for the pages we render (the dashboard, /docs, the unsubscribe page). It
// escapes quotes and the backtick too, so a value is safe in text and in any quoted attribute.
// (src/mail/sanitize/serialize-visible.ts keeps its own: it writes markup for the text converter, not a page.)

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (char) => ENTITIES[char]!);
}

// Characters that render as nothing or reorder what is around them (format and control characters,
// Hangul fillers), except tab and line breaks. U+202E can make "moc.live" read "evil.com".
const HIDDEN_CHARS = /(?![\t\n\r])[\p{Cf}\p{Cc}\u115F\u1160\u3164\uFFA0]/gu;

/**
 * Text a human must judge (what an agent wants to send), with every invisible or direction-changing
 * character shown as a visible `U+XXXX` marker instead of taking effect: escaped HTML with each
 * marker in `<mark class="hidden-char">`, or, for plain text, `[U+XXXX]`.
 */
export function revealHidden(value: string, as: "html" | "text" = "html"): string {
  let out = "";
  let last = 0;
  const plain = as === "text" ? (s: string) => s : escapeHtml;
  for (const match of value.matchAll(HIDDEN_CHARS)) {
    const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    out += plain(value.slice(last, match.index)) + (as === "text" ? `[U+${code}]` : `<mark class="hidden-char">U+${code}</mark>`);
    last = match.index + match[0].length;
  }
  return out + plain(value.slice(last));
}
