// The text of an attachment: PDF (unpdf, pdf.js underneath), DOCX (mammoth), plain text and CSV,
// HTML (through the body's sanitizer, so only what a human would see), and images and scanned
// PDFs through OCR (Debian's tesseract, with poppler's pdftoppm for PDF pages) when installed.
// Never throws: a broken or hostile file is an `error` result for that attachment alone, and a
// file over one of its budgets is `too_large` with the reason. Every parser that inflates or
// decodes (PDF, DOCX, HTML, OCR) runs in a process of its own (attachment-extract.ts) under an
// address-space and CPU limit (prlimit), killed with its tools at the deadline; at most
// `concurrency` such processes run at once in one service process.
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtractJob, ExtractKind, ExtractOutcome } from "./attachment-extract.ts";

export type AttachmentTextStatus = "ok" | "empty" | "unsupported" | "too_large" | "error";
export type AttachmentText = { status: AttachmentTextStatus; method: string | null; text: string | null; error: string | null };

export type AttachmentTextLimits = {
  maxBytes: number;
  maxChars: number;
  timeoutMs: number;
  /** at most this many pages of a scanned PDF go through OCR */
  ocrPages: number;
  /** address space of the extraction process and of each tool it starts */
  memoryBytes: number;
  /** a DOCX's entries in all, or one PDF stream, inflated */
  maxInflatedBytes: number;
  maxPdfPages: number;
  /** an image, an image inside a scanned PDF, or a PDF page rendered for OCR */
  maxImagePixels: number;
  /** extraction processes running at once in this service process */
  concurrency: number;
  /** the tesseract binary, or null when OCR is not available */
  tesseract: string | null;
  /** the prlimit binary, or null (the process then runs without a memory limit) */
  prlimit: string | null;
};

export const DEFAULT_ATTACHMENT_TEXT_LIMITS: Omit<AttachmentTextLimits, "tesseract" | "prlimit"> = {
  maxBytes: 20 * 1024 * 1024,
  maxChars: 200_000,
  timeoutMs: 20_000,
  ocrPages: 5,
  memoryBytes: 1024 * 1024 * 1024,
  maxInflatedBytes: 64 * 1024 * 1024,
  maxPdfPages: 2_000,
  maxImagePixels: 40_000_000,
  concurrency: 2,
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
  if (attachment.content.byteLength > limits.maxBytes) {
    const error = `the attachment is ${attachment.content.byteLength} bytes, over the ${limits.maxBytes}-byte budget`;
    return { status: "too_large", method: kind, text: null, error };
  }
  if (kind === "image" && !limits.tesseract) return { status: "unsupported", method: null, text: null, error: "OCR is not installed" };
  let method: string = kind === "image" ? "ocr" : kind;
  let text: string;
  if (kind === "text" || kind === "csv") text = new TextDecoder("utf-8", { fatal: false }).decode(attachment.content);
  else {
    const outcome = await withSlot(limits.concurrency, () => extractInProcess(kind, attachment.content, limits));
    if (!outcome.ok) {
      return {
        status: outcome.refused ? "too_large" : "error",
        method: kind,
        text: null,
        error: outcome.error.replace(/\s+/g, " ").slice(0, 300),
      };
    }
    method = outcome.method;
    text = outcome.text;
  }
  const clean = tidy(text).slice(0, limits.maxChars);
  return clean === "" ? { status: "empty", method, text: null, error: null } : { status: "ok", method, text: clean, error: null };
}

const TIMED_OUT = "attachment text extraction timed out";
const extractScript = new URL("./attachment-extract.ts", import.meta.url).pathname;

/**
 * One extraction process, in a process group of its own so that the deadline kills the tools it
 * started too. Its answer is a file in its private directory; no answer means it was killed or
 * died, and the reason is read from how it ended.
 */
async function extractInProcess(kind: ExtractKind, content: Uint8Array, limits: AttachmentTextLimits): Promise<ExtractOutcome> {
  const dir = await mkdtemp(join(tmpdir(), "attachment-"));
  try {
    await writeFile(join(dir, "input"), content);
    const job: ExtractJob = {
      kind,
      dir,
      maxChars: limits.maxChars,
      ocrPages: limits.ocrPages,
      maxPdfPages: limits.maxPdfPages,
      maxInflatedBytes: limits.maxInflatedBytes,
      maxImagePixels: limits.maxImagePixels,
      tesseract: limits.tesseract,
    };
    const bun = [process.execPath, "--smol", extractScript, JSON.stringify(job)];
    const cpuSeconds = Math.ceil(limits.timeoutMs / 1000) + 1;
    const command = limits.prlimit ? [limits.prlimit, `--as=${limits.memoryBytes}`, `--cpu=${cpuSeconds}`, "--core=0", "--", ...bun] : bun;
    const ended = await runGroup(command, limits.timeoutMs);
    const memory = `${Math.round(limits.memoryBytes / (1024 * 1024))} MB`;
    const outOfMemory = /out of memory|allocation failed|cannot allocate|bad_alloc|std::bad|ENOMEM/i;
    if (ended.timedOut || ended.signal === "SIGXCPU") return { ok: false, refused: false, error: TIMED_OUT };
    const result = join(dir, "result.json");
    const size = await stat(result).then(
      (info) => info.size,
      () => null,
    );
    if (size !== null && size <= limits.maxChars * 6 + 65_536) {
      const outcome = JSON.parse(await readFile(result, "utf8")) as ExtractOutcome;
      if (!outcome.ok && outOfMemory.test(outcome.error)) {
        return { ok: false, refused: false, error: `attachment text extraction went over its ${memory} memory budget` };
      }
      return outcome;
    }
    if (outOfMemory.test(ended.stderr) || ended.signal === "SIGSEGV" || ended.signal === "SIGABRT" || ended.signal === "SIGTRAP") {
      return { ok: false, refused: false, error: `attachment text extraction went over its ${memory} memory budget` };
    }
    const how = ended.signal ? `signal ${ended.signal}` : `exit ${ended.code}`;
    return { ok: false, refused: false, error: `attachment text extraction process failed (${how})` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type Ended = { code: number | null; signal: string | null; timedOut: boolean; stderr: string };

function runGroup(command: string[], timeoutMs: number): Promise<Ended> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { detached: true, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let timedOut = false;
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 16_384) stderr += chunk.toString("utf8");
    });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, timedOut, stderr: String(error) });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      // Tools it started and left behind go with it.
      killGroup();
      resolve({ code, signal, timedOut, stderr });
    });
  });
}

let running = 0;
const waiting: (() => void)[] = [];

/** At most `limit` extraction processes at once; the others wait their turn (not counted in their deadline). */
async function withSlot<T>(limit: number, work: () => Promise<T>): Promise<T> {
  while (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
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

function findTool(name: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(name, args, { timeout: 5000 }, (error) => resolve(error ? null : name));
  });
}

/** The tesseract binary on PATH, or null (OCR then reports attachments as unsupported). */
export const findTesseract = () => findTool("tesseract", ["--version"]);

/** util-linux prlimit on PATH (Linux), or null: extraction then has a deadline but no memory limit. */
export const findPrlimit = () => findTool("prlimit", ["--version"]);
