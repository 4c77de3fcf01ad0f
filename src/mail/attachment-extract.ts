// The extraction process: reads one attachment's text and prints it as one JSON line. Started by
// attachment-text.ts for each attachment, under an address-space and CPU limit (prlimit) that
// poppler and tesseract, started from here, inherit; killed with its whole process group at the
// deadline. A file that makes a parser balloon takes down this process only, never the service.
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { setPriority } from "node:os";
import { join } from "node:path";
import { checkImageBudget, checkPdfBudget, checkZipBudget, OverBudget } from "./attachment-budget.ts";

export type ExtractKind = "pdf" | "docx" | "html" | "image";

/** What the parent passes: the budgets that apply inside the process. */
export type ExtractJob = {
  kind: ExtractKind;
  /** a private directory holding the attachment as `input`; scratch files go there too */
  dir: string;
  maxChars: number;
  ocrPages: number;
  maxPdfPages: number;
  maxInflatedBytes: number;
  maxImagePixels: number;
  tesseract: string | null;
};

export type ExtractOutcome = { ok: true; text: string; method: string } | { ok: false; refused: boolean; error: string };

const OCR_DPI = 200;

async function extract(job: ExtractJob): Promise<{ text: string; method: string }> {
  const input = join(job.dir, "input");
  const content = new Uint8Array(await readFile(input));
  switch (job.kind) {
    case "docx": {
      await checkZipBudget(content, job.maxInflatedBytes);
      const mammoth = await import("mammoth");
      return { text: (await mammoth.extractRawText({ buffer: Buffer.from(content) })).value, method: "docx" };
    }
    case "pdf": {
      await checkPdfBudget(content, job.maxInflatedBytes, job.maxPdfPages);
      const text = await pdfText(content, job);
      if (text.trim() !== "" || !job.tesseract) return { text, method: "pdf" };
      // A PDF without a text layer is a scan: read its pages with OCR.
      return { text: await ocrPdf(input, job), method: "ocr" };
    }
    case "html": {
      // Loaded here, as the parsers above are: the sanitizer's modules cost every extraction
      // process about 80 ms of CPU at start-up, and most attachments are not HTML.
      const { sanitizeBody } = await import("./sanitize.ts");
      const html = new TextDecoder("utf-8", { fatal: false }).decode(content);
      return { text: sanitizeBody({ html }, { maxChars: job.maxChars }).body_clean ?? "", method: "html" };
    }
    case "image":
      checkImageBudget(content, job.maxImagePixels);
      return { text: await run(job.tesseract!, [input, "stdout"]), method: "ocr" };
  }
}

/** Page by page, refusing a document over the page budget and stopping once maxChars are read. */
async function pdfText(content: Uint8Array, job: ExtractJob): Promise<string> {
  const { getDocumentProxy } = await import("unpdf");
  // With stopAtErrors off, pdf.js turns a failed allocation in a page into a warning and an empty
  // page; the PDF would then look like a scan and go on to a slow OCR until the deadline. Listen
  // to its warnings and treat an out-of-memory one as what it is.
  const warn = console.warn;
  const swallowed: { outOfMemory?: string } = {};
  console.warn = (...args: unknown[]) => {
    const line = args.map(String).join(" ");
    if (/out of memory|allocation failed/i.test(line)) swallowed.outOfMemory ??= line;
  };
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    pdf = await getDocumentProxy(content, { isEvalSupported: false, stopAtErrors: false, verbosity: 1 });
    if (pdf.numPages > job.maxPdfPages) {
      throw new OverBudget(`the PDF has ${pdf.numPages} pages, over the ${job.maxPdfPages}-page budget`);
    }
    const pages: string[] = [];
    let chars = 0;
    for (let number = 1; number <= pdf.numPages && chars < job.maxChars; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      const text = content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
      page.cleanup();
      pages.push(text);
      chars += text.length;
    }
    if (swallowed.outOfMemory) throw new Error(`Out of memory while reading the PDF (${swallowed.outOfMemory.slice(0, 200)})`);
    return pages
      .join("\n")
      .replace(/[^\S\n]+/g, " ")
      .replace(/ ?\n ?/g, "\n");
  } finally {
    console.warn = warn;
    await pdf?.destroy();
  }
}

/** The first pages of a scan through pdftoppm and tesseract, after checking what they would decode. */
async function ocrPdf(input: string, job: ExtractJob): Promise<string> {
  const last = String(job.ocrPages);
  // Every embedded image is decoded whole before it is scaled to the page: refuse big ones first.
  const images = await run("pdfimages", ["-list", "-l", last, input]);
  for (const line of images.split("\n").slice(2)) {
    const [, , , width, height] = line.trim().split(/\s+/).map(Number);
    if (width && height && width * height > job.maxImagePixels) {
      throw new OverBudget(
        `the PDF holds a ${width}x${height}-pixel image, over the ${job.maxImagePixels.toLocaleString("en")}-pixel budget`,
      );
    }
  }
  // A page rendered at OCR_DPI must fit the pixel budget too: big pages render at a lower resolution.
  const info = await run("pdfinfo", ["-f", "1", "-l", last, input]);
  let largestPage = 0;
  for (const match of info.matchAll(/Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+) pts/g)) {
    const pixels = ((Number(match[1]) / 72) * OCR_DPI * Number(match[2]) * OCR_DPI) / 72;
    largestPage = Math.max(largestPage, pixels);
  }
  const dpi = largestPage > job.maxImagePixels ? Math.max(1, Math.floor(OCR_DPI * Math.sqrt(job.maxImagePixels / largestPage))) : OCR_DPI;
  await run("pdftoppm", ["-r", String(dpi), "-gray", "-png", "-l", last, input, join(job.dir, "page")]);
  const pages = (await readdir(job.dir)).filter((name) => name.startsWith("page") && name.endsWith(".png")).sort();
  const texts: string[] = [];
  for (const page of pages) texts.push(await run(job.tesseract!, [join(job.dir, page), "stdout"]));
  return texts.join("\n\n");
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // One OCR thread: the machine's other cores belong to the service.
    const env = { ...process.env, OMP_THREAD_LIMIT: "1" };
    execFile(command, args, { env, maxBuffer: 16 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const signal = (error as { signal?: string }).signal;
      const reason = signal ? `ended by ${signal}` : (stderr.trim().split("\n").pop() ?? error.message);
      reject(new Error(`${command} failed: ${reason}`));
    });
  });
}

/**
 * Reading an attachment is background work: at the lowest priority (niceness 19, inherited by
 * poppler and tesseract) it takes only the CPU that the listener, the API and PostgreSQL leave
 * rather than competing with their answers. Its deadline is wall-clock, so starved work ends as
 * "timed out", never as a stuck job.
 */
const BACKGROUND_NICENESS = 19;

async function main(): Promise<void> {
  try {
    setPriority(BACKGROUND_NICENESS);
  } catch {
    // A platform without priorities (or a sandbox that forbids them) still extracts.
  }
  const job = JSON.parse(process.argv[2] ?? "{}") as ExtractJob;
  let outcome: ExtractOutcome;
  try {
    outcome = { ok: true, ...(await extract(job)) };
    if (outcome.text.length > job.maxChars) outcome.text = outcome.text.slice(0, job.maxChars);
  } catch (error) {
    const message = String((error as Error)?.message ?? error);
    outcome = { ok: false, refused: error instanceof OverBudget, error: message };
  }
  await writeFile(join(job.dir, "result.json"), JSON.stringify(outcome));
  process.exit(0);
}

if (import.meta.main) await main();
