// Checks on the received bytes that smtp-server does not make itself, made chunk by chunk as the
// message arrives (a pass over a whole message of many megabytes at its end held the event loop,
// and every other session and request with it).

export const MAX_HEADER_BYTES = 256 * 1024;
export const MAX_LINE_BYTES = 64 * 1024;

export type LimitCheck = {
  /** The next bytes of the message. */
  push(chunk: Uint8Array): void;
  /** A reason to refuse the message, or null when it is within limits; call once all was pushed. */
  violation(): string | null;
};

/** Follows a message's line lengths and header size across the chunks it arrives in. */
export function messageLimitCheck(): LimitCheck {
  let position = 0;
  let lineStart = 0;
  let lineFirst = -1;
  let headerEnd = -1;
  let tooLong = false;
  return {
    push(chunk) {
      if (tooLong) return;
      let at = 0;
      for (;;) {
        const newline = chunk.indexOf(10, at); // \n
        if (lineFirst < 0 && at < chunk.length && (newline < 0 || newline > at)) lineFirst = chunk[at]!;
        if (newline < 0) break;
        const end = position + newline;
        if (end - lineStart > MAX_LINE_BYTES) {
          tooLong = true;
          return;
        }
        // A line holding only CR or nothing ends the header section.
        if (headerEnd < 0 && (end === lineStart || (end === lineStart + 1 && lineFirst === 13))) headerEnd = end;
        lineStart = end + 1;
        lineFirst = -1;
        at = newline + 1;
      }
      position += chunk.length;
    },
    violation() {
      if (tooLong || position - lineStart > MAX_LINE_BYTES) return "line too long";
      const headerBytes = headerEnd < 0 ? position : headerEnd;
      if (headerBytes > MAX_HEADER_BYTES) return "message header too large";
      return null;
    },
  };
}

/** The check over a whole message at once. */
export function messageLimitViolation(raw: Uint8Array): string | null {
  const check = messageLimitCheck();
  check.push(raw);
  return check.violation();
}
