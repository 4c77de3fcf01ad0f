// The bytes of a compiled nodemailer message tree, written synchronously. nodemailer's own build()
// streams the tree through a PassThrough per node, an encoder Transform per part and two newline
// Transforms, a turn of the event loop (setImmediate) between each step: about 0.2 ms of the event
// loop and several turns for a one-part text message (docs/performance.md, "Sending"). Here the
// same tree is walked in the order MimeNode.stream walks it, with nodemailer's own header builder
// and its own QP and base64 encoders fed the whole part at once (the stream gets it as one chunk
// too), then its end-of-message and CRLF rules; test/mail/mime-bytes.test.ts holds the output
// byte for byte to build()'s for every kind of message compose.ts makes.
import { Buffer } from "node:buffer";
import { Encoder as Base64Encoder } from "nodemailer/lib/base64";
import type MimeNode from "nodemailer/lib/mime-node";
import { Encoder as QpEncoder } from "nodemailer/lib/qp";

/** What a node can hold that this walker does not write: raw source, streams, files and URLs. */
type NodeInternals = { _raw?: unknown; _transforms?: unknown[]; _processFuncs?: unknown[]; newline?: string };

/** The message under `root`, CRLF line ends; null when the tree holds anything but strings and buffers. */
export function mimeBytes(root: MimeNode): Buffer | null {
  const own = root as unknown as NodeInternals;
  if (own._transforms?.length || own._processFuncs?.length) return null;
  if (!["win", "windows", "dos", "\r\n"].includes(String(own.newline ?? "").toLowerCase())) return null;
  const parts: Buffer[] = [];
  try {
    writeNode(root, parts);
  } catch (error) {
    if (error instanceof UnsupportedNode) return null;
    throw error;
  }
  return crlfLineEnds(withLastNewline(Buffer.concat(parts)));
}

/** Thrown from anywhere in the tree for a node this walker does not write. */
class UnsupportedNode extends Error {}

function writeNode(node: MimeNode, out: Buffer[]): void {
  if ((node as unknown as NodeInternals)._raw) throw new UnsupportedNode();
  const content = node.content;
  if (content !== undefined && content !== null && typeof content !== "string" && !Buffer.isBuffer(content)) {
    throw new UnsupportedNode();
  }
  // As MimeNode.stream: the encoding is decided before the headers are built (they carry it).
  const transferEncoding = node.getTransferEncoding();
  out.push(Buffer.from(`${node.buildHeaders()}\r\n\r\n`));
  if (content) {
    const bytes = typeof content === "string" ? Buffer.from(content) : content;
    if (transferEncoding === "base64") out.push(encodeWhole(new Base64Encoder({}), bytes));
    else if (transferEncoding === "quoted-printable") {
      // Outside text a lone CR or LF is data (nodemailer's own rule): encoded, not a line break.
      out.push(encodeWhole(new QpEncoder({ binary: !/^text\//i.test(node.contentType ?? "") }), bytes));
    } else out.push(bytes);
  }
  if (node.multipart) {
    node.childNodes.forEach((child, i) => {
      out.push(Buffer.from(`${i > 0 ? "\r\n" : ""}--${node.boundary}\r\n`));
      writeNode(child, out);
    });
    out.push(Buffer.from(`\r\n--${node.boundary}--\r\n`));
  }
}

type TransformHooks = {
  _transform(chunk: Buffer, encoding: string, done: () => void): void;
  _flush(done: () => void): void;
  push(chunk: unknown, encoding?: string): boolean;
};

/**
 * One chunk through a nodemailer encoder and its end, by the Transform's own hooks, which push
 * synchronously: what the stream would emit for the part, without the stream machinery.
 */
function encodeWhole(encoder: QpEncoder | Base64Encoder, bytes: Buffer): Buffer {
  const hooks = encoder as unknown as TransformHooks;
  const chunks: Buffer[] = [];
  hooks.push = (chunk: unknown, encoding?: string) => {
    if (chunk !== null && chunk !== undefined) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), (encoding as BufferEncoding) ?? "utf8"));
    }
    return true;
  };
  if (bytes.length > 0) hooks._transform(bytes, "buffer", () => {});
  hooks._flush(() => {});
  return Buffer.concat(chunks);
}

/** nodemailer's LastNewline: a message ends with a line break. */
function withLastNewline(message: Buffer): Buffer {
  const last = message.length > 0 ? message[message.length - 1] : undefined;
  if (last === 0x0a) return message;
  return Buffer.concat([message, Buffer.from(last === 0x0d ? "\n" : "\r\n")]);
}

/** nodemailer's LeWindows: every LF not preceded by CR becomes CRLF; everything else stays. */
function crlfLineEnds(message: Buffer): Buffer {
  let bare = 0;
  for (let i = 0; i < message.length; i++) if (message[i] === 0x0a && (i === 0 || message[i - 1] !== 0x0d)) bare++;
  if (bare === 0) return message;
  const out = Buffer.allocUnsafe(message.length + bare);
  let at = 0;
  for (let i = 0; i < message.length; i++) {
    if (message[i] === 0x0a && (i === 0 || message[i - 1] !== 0x0d)) out[at++] = 0x0d;
    out[at++] = message[i]!;
  }
  return out;
}
