// Limits every JSON body we read shares, for the API routes and for /mcp alike: a byte limit that
// holds also without a Content-Length, and a nesting limit counted before parsing.

export const MAX_JSON_DEPTH = 16;

/** The body as text, or null once it passes maxBytes (declared or actual). */
export async function readBodyWithin(request: Request, maxBytes: number): Promise<string | null> {
  if (Number(request.headers.get("content-length") ?? 0) > maxBytes) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const joined = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(joined);
}

/** How deeply objects and arrays nest: a linear scan, so a hostile body never costs a deep parse. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") deepest = Math.max(deepest, ++depth);
    else if (char === "}" || char === "]") depth--;
  }
  return deepest;
}
