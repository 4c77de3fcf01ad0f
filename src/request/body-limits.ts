// Limits every JSON body we read shares, for the API routes and for /mcp alike: a byte limit that
// holds also without a Content-Length, and a nesting limit counted before parsing.

export const MAX_JSON_DEPTH = 16;

/** The body as text, or null once it passes maxBytes (declared or actual). */
export async function readBodyWithin(request: Request, maxBytes: number): Promise<string | null> {
  const bytes = await readBodyBytesWithin(request, maxBytes);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/** The body's bytes, or null once it passes maxBytes (declared or actual). */
export async function readBodyBytesWithin(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (Number(declared ?? 0) > maxBytes) return null;
  if (!request.body) return new Uint8Array(0);
  // A declared length within the limit is the body's length on the wire (the server holds the
  // client to it), so the body is read whole, without a stream reader's promise per chunk; the
  // size is checked again for a Request made in-process, where nothing holds it to its header.
  if (declared !== null && /^\d+$/.test(declared)) {
    const whole = new Uint8Array(await request.arrayBuffer());
    return whole.byteLength > maxBytes ? null : whole;
  }
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
  return joined;
}

// The one route that takes a file upload (multipart/form-data) may be as large as the files a
// draft may carry, plus the multipart framing; every other body stays under MAX_REQUEST_BYTES.
const UPLOAD_PATH = /^\/api\/v1\/drafts\/[^/]+\/attachments\/?$/;
const MULTIPART_FRAMING = 64 * 1024;

/** The byte limit of a request's body: MAX_REQUEST_BYTES, or for an attachment upload, ATTACHMENT_MAX_BYTES and framing. */
export function requestByteLimit(
  config: { maxRequestBytes: number; attachments: { maxBytes: number } },
  method: string,
  path: string,
): number {
  if (method === "POST" && UPLOAD_PATH.test(path)) return Math.max(config.maxRequestBytes, uploadByteLimit(config));
  return config.maxRequestBytes;
}

export function uploadByteLimit(config: { attachments: { maxBytes: number } }): number {
  return config.attachments.maxBytes + MULTIPART_FRAMING;
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
