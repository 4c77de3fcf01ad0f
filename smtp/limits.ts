// Checks on the received bytes that smtp-server does not make itself.

export const MAX_HEADER_BYTES = 256 * 1024;
export const MAX_LINE_BYTES = 64 * 1024;

/** A reason to refuse the message, or null when it is within limits. */
export function messageLimitViolation(raw: Uint8Array): string | null {
  let lineStart = 0;
  let headerEnd = -1;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== 10) continue; // \n
    if (i - lineStart > MAX_LINE_BYTES) return "line too long";
    // A line holding only CR or nothing ends the header section.
    if (headerEnd < 0 && (i === lineStart || (i === lineStart + 1 && raw[lineStart] === 13))) headerEnd = i;
    lineStart = i + 1;
  }
  if (raw.length - lineStart > MAX_LINE_BYTES) return "line too long";
  const headerBytes = headerEnd < 0 ? raw.length : headerEnd;
  if (headerBytes > MAX_HEADER_BYTES) return "message header too large";
  return null;
}
