// Hostile attachments built in the test, small on the wire and huge once read: a DOCX whose
// document.xml inflates to hundreds of MB, a PDF with a huge FlateDecode stream, a PDF of very
// many pages, a PNG of huge dimensions, and a "scan" holding one huge image. Made by streaming
// deflate so the test itself never holds the inflated size.
import { crc32, createDeflate, createDeflateRaw } from "node:zlib";

/** `count` copies of `chunk`, deflated as one stream fed chunk by chunk (never held inflated). */
function deflated(chunk: Uint8Array, count: number, raw: boolean): Promise<Buffer> {
  const stream = raw ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const out: Buffer[] = [];
  stream.on("data", (data: Buffer) => out.push(data));
  const done = new Promise<Buffer>((resolve, reject) => {
    stream.on("end", () => resolve(Buffer.concat(out)));
    stream.on("error", reject);
  });
  (async () => {
    for (let i = 0; i < count; i++) {
      if (!stream.write(chunk)) await new Promise((resolve) => stream.once("drain", resolve));
    }
    stream.end();
  })();
  return done;
}

type ZipFile = { name: string; data: Buffer; size: number; crc: number; method: 0 | 8 };

function zip(files: ZipFile[], declare: (file: ZipFile) => number = (file) => file.size): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(file.method, 8);
    local.writeUInt32LE(file.crc >>> 0, 14);
    local.writeUInt32LE(file.data.byteLength, 18);
    local.writeUInt32LE(declare(file), 22);
    local.writeUInt16LE(name.byteLength, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(file.method, 10);
    central.writeUInt32LE(file.crc >>> 0, 16);
    central.writeUInt32LE(file.data.byteLength, 20);
    central.writeUInt32LE(declare(file), 24);
    central.writeUInt16LE(name.byteLength, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, file.data);
    centrals.push(central, name);
    offset += 30 + name.byteLength + file.data.byteLength;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.byteLength, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const stored = (name: string, text: string): ZipFile => {
  const data = Buffer.from(text);
  return { name, data, size: data.byteLength, crc: crc32(data), method: 0 };
};

/**
 * A DOCX whose word/document.xml inflates to `megabytes` MB of text runs. `lie`: the central
 * directory declares a few KB, so only inflating tells the truth.
 */
export async function docxBomb(megabytes: number, options: { lie?: boolean } = {}): Promise<Buffer> {
  const run = Buffer.from("<w:r><w:t>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</w:t></w:r>".repeat(13_000)).subarray(
    0,
    1 << 20,
  );
  const body = await deflated(run, megabytes, true);
  const document: ZipFile = {
    name: "word/document.xml",
    // Text runs only, no document head: the inflated size is what matters.
    data: body,
    size: megabytes << 20,
    crc: 0,
    method: 8,
  };
  return zip(
    [
      stored(
        "[Content_Types].xml",
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
      stored(
        "_rels/.rels",
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      ),
      document,
    ],
    options.lie ? (file) => Math.min(file.size, 4096) : undefined,
  );
}

/** A PDF from its objects' bodies (numbered from 1, the first the catalog), with a correct xref. */
export function pdfFrom(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let length = parts[0]!.byteLength;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const part = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`),
      typeof body === "string" ? Buffer.from(body, "latin1") : body,
      Buffer.from("\nendobj\n"),
    ]);
    parts.push(part);
    length += part.byteLength;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`),
  ].join("");
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const stream = (dictionary: string, data: Buffer) =>
  Buffer.concat([Buffer.from(`<< ${dictionary} /Length ${data.byteLength} >>\nstream\n`), data, Buffer.from("\nendstream")]);

/** One page whose content stream inflates to `megabytes` MB. */
export async function pdfFlateBomb(megabytes: number): Promise<Buffer> {
  const content = await deflated(Buffer.from("0 0 m 1 1 l S\n".repeat(74_899)).subarray(0, 1 << 20), megabytes, false);
  return pdfFrom([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
    stream("/Filter /FlateDecode", content),
  ]);
}

/** `pages` empty pages. */
export function pdfManyPages(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(" ");
  return pdfFrom([
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    ...Array.from({ length: pages }, () => "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"),
  ]);
}

/** A scan: no text, one page showing a `side`x`side` JPEG-declared image (the data is junk: only the declared size is read). */
export function pdfHugeImage(side: number): Buffer {
  return pdfFrom([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>",
    stream("", Buffer.from("q 612 0 0 792 0 0 cm /Im1 Do Q")),
    stream(
      `/Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode`,
      Buffer.from([0xff, 0xd8, 0xff, 0xd9]),
    ),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.byteLength, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid grayscale PNG of `side`x`side` white pixels. */
export async function pngBomb(side: number): Promise<Buffer> {
  const row = Buffer.alloc(side + 1, 0xff);
  row[0] = 0;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", await deflated(row, side, false)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

export const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
/** A bomb: what it is, how to make it, and the reason its reading is refused with. */
export type AttachmentBomb = {
  name: string;
  filename: string;
  contentType: string;
  content: () => Promise<Uint8Array>;
  reason: RegExp;
  /** reached only through OCR (tesseract installed) */
  ocr?: boolean;
};
/** The six bombs the resource tests and `npm run bench -- bombs` send over SMTP. */
export const attachmentBombs: AttachmentBomb[] = [
  {
    name: "a DOCX whose document.xml inflates to 350 MB",
    filename: "report.docx",
    contentType: DOCX,
    content: () => docxBomb(350),
    reason: /^the archive would inflate to 350 MB \(word\/document\.xml: 350 MB\), over the 64 MB budget$/,
  },
  {
    name: "the same DOCX with a central directory that lies about the size",
    filename: "liar.docx",
    contentType: DOCX,
    content: () => docxBomb(350, { lie: true }),
    reason: /^word\/document\.xml inflates past the 64 MB budget$/,
  },
  {
    name: "a PDF with a FlateDecode stream of 540 MB",
    filename: "statement.pdf",
    contentType: "application/pdf",
    content: () => pdfFlateBomb(540),
    reason: /^a PDF stream inflates past the 64 MB budget$/,
  },
  {
    name: "a PDF of 100,000 pages",
    filename: "pages.pdf",
    contentType: "application/pdf",
    content: async () => pdfManyPages(100_000),
    reason: /^the PDF has 100000 pages, over the 2000-page budget$/,
  },
  {
    name: "a 20000x20000 PNG",
    filename: "photo.png",
    contentType: "image/png",
    content: () => pngBomb(20_000),
    reason: /^the image is 20000x20000 pixels, over the 40,000,000-pixel budget$/,
    ocr: true,
  },
  {
    name: "a scan holding one 20000x20000 image",
    filename: "scan.pdf",
    contentType: "application/pdf",
    content: async () => pdfHugeImage(20_000),
    reason: /^the PDF holds a 20000x20000-pixel image, over the 40,000,000-pixel budget$/,
    ocr: true,
  },
];
