// What an attachment would cost to read, found from its headers before any parser sees it: a
// ZIP's (DOCX) inflated size, a PDF's largest Flate stream, an image's pixel count. A file whose
// declared or actual size is over budget is refused with the reason; the extraction process's
// memory limit (attachment-text.ts) is the backstop for what these checks cannot see.
import { createInflate, createInflateRaw } from "node:zlib";

/** Thrown for a file refused by its budget: recorded as `too_large` with this message. */
export class OverBudget extends Error {}

const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;

/**
 * How many bytes `data` inflates to, counted as it streams and never held: null once past `cap`
 * (inflation stops there), or an Error when the data is not a valid stream.
 */
function inflatedSize(data: Uint8Array, raw: boolean, cap: number): Promise<number | null | Error> {
  return new Promise((resolve) => {
    const inflater = raw ? createInflateRaw() : createInflate();
    let size = 0;
    inflater.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > cap) {
        inflater.destroy();
        resolve(null);
      }
    });
    inflater.on("end", () => resolve(size));
    inflater.on("error", (error) => resolve(size > cap ? null : error));
    inflater.end(data);
  });
}

type ZipEntry = { name: string; method: number; compressedSize: number; size: number; localHeader: number };

/** The central directory of a ZIP file (no ZIP64: a DOCX under the byte limit never needs it). */
function zipEntries(zip: Uint8Array): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
  let end = -1;
  for (let at = zip.byteLength - 22; at >= Math.max(0, zip.byteLength - 65_557); at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error("not a ZIP file (no central directory)");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.byteLength || view.getUint32(at, true) !== 0x02014b50) throw new Error("broken ZIP central directory");
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    entries.push({
      name: new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localHeader: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Refuses a ZIP whose entries declare, or actually inflate to, more than maxInflatedBytes in all.
 * Each entry is inflated here with a cap on its output (the declared sizes may lie), so the
 * parser that reads it next inflates no more than was counted.
 */
export async function checkZipBudget(zip: Uint8Array, maxInflatedBytes: number): Promise<void> {
  const entries = zipEntries(zip);
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (declared > maxInflatedBytes) {
    const largest = entries.reduce((a, b) => (b.size > a.size ? b : a));
    throw new OverBudget(
      `the archive would inflate to ${mb(declared)} (${largest.name}: ${mb(largest.size)}), over the ${mb(maxInflatedBytes)} budget`,
    );
  }
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let inflated = 0;
  for (const entry of entries) {
    const header = entry.localHeader;
    if (header + 30 > zip.byteLength || view.getUint32(header, true) !== 0x04034b50) throw new Error("broken ZIP entry");
    const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
    const data = zip.subarray(start, start + entry.compressedSize);
    if (entry.method === 0) inflated += data.byteLength;
    else if (entry.method === 8) {
      const size = await inflatedSize(data, true, maxInflatedBytes - inflated);
      if (size === null) throw new OverBudget(`${entry.name} inflates past the ${mb(maxInflatedBytes)} budget`);
      if (size instanceof Error) throw new Error(`broken ZIP entry ${entry.name}`);
      inflated += size;
    }
    if (inflated > maxInflatedBytes) throw new OverBudget(`the archive inflates past the ${mb(maxInflatedBytes)} budget`);
  }
}

/**
 * Refuses a PDF whose page tree counts more than maxPages, or with a Flate stream that inflates
 * past maxInflatedBytes. A pre-check on what is written plainly in the file (most bombs): what
 * hides inside object streams is caught by the page count pdf.js reads and by the process's
 * memory limit.
 */
export async function checkPdfBudget(pdf: Uint8Array, maxInflatedBytes: number, maxPages: number): Promise<void> {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString("latin1");
  let pages = 0;
  for (const match of text.matchAll(/\/Count\s+(\d{1,12})/g)) pages = Math.max(pages, Number(match[1]));
  if (pages > maxPages) throw new OverBudget(`the PDF has ${pages} pages, over the ${maxPages}-page budget`);
  const streams = /\/FlateDecode[\s\S]{0,2000}?stream\r?\n/g;
  for (let match = streams.exec(text); match; match = streams.exec(text)) {
    const start = match.index + match[0].length;
    const end = text.indexOf("endstream", start);
    if (end < 0) break;
    // Not Flate after all, or damaged (an Error): pdf.js decides what it makes of it.
    if ((await inflatedSize(pdf.subarray(start, end), false, maxInflatedBytes)) === null) {
      throw new OverBudget(`a PDF stream inflates past the ${mb(maxInflatedBytes)} budget`);
    }
    streams.lastIndex = end;
  }
}

/** An image's width and height from its header, or null when the header cannot be read. */
export function imageSize(image: Uint8Array): { width: number; height: number } | null {
  const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
  const has = (bytes: number) => image.byteLength >= bytes;
  const ascii = (at: number, length: number) => String.fromCharCode(...image.subarray(at, at + length));
  // PNG: the IHDR chunk comes first.
  if (has(24) && view.getUint32(0) === 0x89504e47) return { width: view.getUint32(16), height: view.getUint32(20) };
  // GIF: the logical screen, and every frame is inside it.
  if (has(10) && ascii(0, 3) === "GIF") return { width: view.getUint16(6, true), height: view.getUint16(8, true) };
  // BMP: BITMAPINFOHEADER (height is negative for top-down images).
  if (has(26) && ascii(0, 2) === "BM") return { width: Math.abs(view.getInt32(18, true)), height: Math.abs(view.getInt32(22, true)) };
  // WebP: VP8 (lossy), VP8L (lossless) or VP8X (extended).
  if (has(30) && ascii(0, 4) === "RIFF" && ascii(8, 4) === "WEBP") {
    const chunk = ascii(12, 4);
    if (chunk === "VP8 ") return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
    if (chunk === "VP8L") {
      const bits = view.getUint32(21, true);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === "VP8X") {
      const width = 1 + (image[24]! | (image[25]! << 8) | (image[26]! << 16));
      return { width, height: 1 + (image[27]! | (image[28]! << 8) | (image[29]! << 16)) };
    }
    return null;
  }
  // JPEG: the first start-of-frame marker.
  if (has(4) && view.getUint16(0) === 0xffd8) {
    let at = 2;
    while (at + 9 < image.byteLength) {
      if (image[at] !== 0xff) return null;
      const marker = image[at + 1]!;
      if (marker === 0xff) {
        at++;
        continue;
      }
      const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isFrame) return { width: view.getUint16(at + 7), height: view.getUint16(at + 5) };
      at += 2 + view.getUint16(at + 2);
    }
    return null;
  }
  // TIFF: the first image file directory's ImageWidth (256) and ImageLength (257).
  if (has(8) && (ascii(0, 4) === "II*\0" || ascii(0, 4) === "MM\0*")) {
    const little = image[0] === 0x49;
    const u16 = (at: number) => view.getUint16(at, little);
    const u32 = (at: number) => view.getUint32(at, little);
    const ifd = u32(4);
    if (ifd + 2 > image.byteLength) return null;
    let width = 0;
    let height = 0;
    for (let i = 0, count = u16(ifd); i < count && ifd + 2 + i * 12 + 12 <= image.byteLength; i++) {
      const entry = ifd + 2 + i * 12;
      const value = u16(entry + 2) === 3 ? u16(entry + 8) : u32(entry + 8);
      if (u16(entry) === 256) width = value;
      if (u16(entry) === 257) height = value;
    }
    return width && height ? { width, height } : null;
  }
  return null;
}

/** Refuses an image over maxPixels; one whose header does not tell its size is an error (never decoded). */
export function checkImageBudget(image: Uint8Array, maxPixels: number): void {
  const size = imageSize(image);
  if (!size) throw new Error("the image's dimensions could not be read from its header");
  if (size.width * size.height > maxPixels) {
    throw new OverBudget(`the image is ${size.width}x${size.height} pixels, over the ${maxPixels.toLocaleString("en")}-pixel budget`);
  }
}
