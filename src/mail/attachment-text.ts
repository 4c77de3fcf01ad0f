// The text of an attachment: PDF (unpdf, pdf.js underneath), DOCX (mammoth), plain text and CSV,
// HTML (through the body's sanitizer, so only what a human would see), and images and scanned
// PDFs through OCR (Debian's tesseract, with poppler's pdftoppm for PDF pages) when installed.
// Never throws: a broken or hostile file is an `error` result for that attachment alone. Each
// extraction is bounded in input size, output length and time (OCR runs as a child process that
// is killed at the deadline; PDF and DOCX parse in a Worker that is terminated at it).
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sanitizeBody } from "./sanitize.ts";

export type AttachmentTextStatus = "ok" | "empty" | "unsupported" | "too_large" | "error";
export type AttachmentText = { status: AttachmentTextStatus; method: string | null; text: string | null; error: string | null };

export type AttachmentTextLimits = {
  maxBytes: number;
  maxChars: number;
  timeoutMs: number;
  /** at most this many pages of a scanned PDF go through OCR */
  ocrPages: number;
  /** the tesseract binary, or null when OCR is not available */
  tesseract: string | null;
};

export const DEFAULT_ATTACHMENT_TEXT_LIMITS: Omit<AttachmentTextLimits, "tesseract"> = {
  maxBytes: 20 * 1024 * 1024,
  maxChars: 200_000,
  timeoutMs: 20_000,
  ocrPages: 5,
};

type Kind = "pdf" | "docx" | "text" | "csv" | "html" | "image";

function kindOf(contentType: string, filename: string | null): Kind | null {
  const type = contentType.toLowerCase().split(";")[0]!.trim();
  const extension = (filename ?? "").toLowerCase().match(/\.([a-z0-9]{1,5})$/)?.[1] ?? "";
  if (type === "application/pdf" || extension === "pdf") return "pdf";
  if (type === "application/vnd.openxmlformats-officedocument.wordprocessingml.document" || extension === "docx") return "docx";
  if (type === "text/html" || extension === "html" || extension === "htm") return "html";
  if (type === "text/csv" || extension === "csv") return "csv";
  if (type.startsWith("text/") || ["txt", "md", "log", "json", "xml", "ics", "vcf"].includes(extension)) return "text";
  if (["image/png", "image/jpeg", "image/tiff", "image/bmp", "image/webp", "image/gif"].includes(type)) return "image";
  return null;
}

export async function extractAttachmentText(
  attachment: { contentType: string; filename: string | null; content: Uint8Array },
  limits: AttachmentTextLimits,
): Promise<AttachmentText> {
  const kind = kindOf(attachment.contentType, attachment.filename);
  if (!kind) return { status: "unsupported", method: null, text: null, error: null };
  if (attachment.content.byteLength > limits.maxBytes) return { status: "too_large", method: kind, text: null, error: null };
  if (kind === "image" && !limits.tesseract) return { status: "unsupported", method: null, text: null, error: "OCR is not installed" };
  const deadline = Date.now() + limits.timeoutMs;
  try {
    let method: string = kind;
    let text = await withDeadline(read(kind, attachment.content, limits, deadline), deadline);
    // A PDF without a text layer is a scan: read its pages with OCR.
    if (kind === "pdf" && text.trim() === "" && limits.tesseract) {
      method = "ocr";
      text = await ocrPdf(attachment.content, limits, deadline);
    }
    if (kind === "image") method = "ocr";
    const clean = tidy(text).slice(0, limits.maxChars);
    return clean === "" ? { status: "empty", method, text: null, error: null } : { status: "ok", method, text: clean, error: null };
  } catch (error) {
    return {
      status: "error",
      method: kind,
      text: null,
      error: String((error as Error)?.message ?? error)
        .replace(/\s+/g, " ")
        .slice(0, 300),
    };
  }
}

async function read(kind: Kind, content: Uint8Array, limits: AttachmentTextLimits, deadline: number): Promise<string> {
  switch (kind) {
    case "pdf":
    case "docx":
      return parseInWorker(kind, content, deadline);
    case "text":
    case "csv":
      return new TextDecoder("utf-8", { fatal: false }).decode(content);
    case "html":
      return (
        sanitizeBody({ html: new TextDecoder("utf-8", { fatal: false }).decode(content) }, { maxChars: limits.maxChars }).body_clean ?? ""
      );
    case "image":
      return ocrImage(content, limits, deadline);
  }
}

/** PDF and DOCX parsing in a Worker that is terminated at the deadline. */
function parseInWorker(kind: "pdf" | "docx", content: Uint8Array, deadline: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./attachment-parse-worker.ts", import.meta.url).href, { type: "module" });
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      worker.terminate();
      settle();
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error("attachment text extraction timed out"))),
      Math.max(0, deadline - Date.now()),
    );
    worker.onmessage = (event: MessageEvent) => {
      const reply = event.data as { ok: boolean; text?: string; error?: string };
      finish(() => (reply.ok ? resolve(reply.text ?? "") : reject(new Error(reply.error ?? "parse failed"))));
    };
    worker.onerror = (event: ErrorEvent) => finish(() => reject(new Error(event.message || "parser crashed")));
    // A copy: pdf.js detaches the buffer it is given.
    worker.postMessage({ kind, content: new Uint8Array(content) });
  });
}

async function withTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "attachment-ocr-"));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function ocrImage(content: Uint8Array, limits: AttachmentTextLimits, deadline: number): Promise<string> {
  return withTempDir(async (dir) => {
    const input = join(dir, "image");
    await writeFile(input, content);
    return run(limits.tesseract!, [input, "stdout"], deadline);
  });
}

async function ocrPdf(content: Uint8Array, limits: AttachmentTextLimits, deadline: number): Promise<string> {
  return withTempDir(async (dir) => {
    const input = join(dir, "document.pdf");
    await writeFile(input, content);
    await run("pdftoppm", ["-r", "200", "-gray", "-png", "-l", String(limits.ocrPages), input, join(dir, "page")], deadline);
    const pages = (await readdir(dir)).filter((name) => name.startsWith("page") && name.endsWith(".png")).sort();
    const texts: string[] = [];
    for (const page of pages) texts.push(await run(limits.tesseract!, [join(dir, page), "stdout"], deadline));
    return texts.join("\n\n");
  });
}

/** A child process given what is left of the deadline; killed when it runs over. */
function run(command: string, args: string[], deadline: number): Promise<string> {
  const timeout = deadline - Date.now();
  if (timeout <= 0) return Promise.reject(new Error("attachment text extraction timed out"));
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout, killSignal: "SIGKILL", maxBuffer: 16 * 1024 * 1024, encoding: "utf8" }, (error, stdout) => {
      if (error)
        reject(
          new Error(
            (error as { killed?: boolean }).killed ? "attachment text extraction timed out" : `${command} failed: ${error.message}`,
          ),
        );
      else resolve(stdout);
    });
  });
}

function withDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("attachment text extraction timed out")), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function tidy(text: string): string {
  // Postgres text cannot hold NUL; runs of blank lines and trailing spaces carry nothing.
  return text
    .replace(/\0/g, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** The tesseract binary on PATH, or null (OCR then reports attachments as unsupported). */
export async function findTesseract(): Promise<string | null> {
  return new Promise((resolve) => {
    execFile("tesseract", ["--version"], { timeout: 5000 }, (error) => resolve(error ? null : "tesseract"));
  });
}
