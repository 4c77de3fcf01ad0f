// The content type of an outgoing attachment, checked against its bytes (magic numbers, read by
// the `file-type` library, which also looks inside ZIP containers to tell a DOCX from an XLSX).
//
// The decision (docs/decisions.md, "Outgoing attachments"): a declared type the bytes contradict
// is refused (400), never silently corrected: a PDF label on an image, or on a program, is either
// a mistake the agent should see or a disguise a recipient must not be shown. Only a declaration
// that says nothing (absent or application/octet-stream) is corrected to what the bytes are.
// Executables are refused whatever they are called: an agent has no business mailing programs.
import { fileTypeFromBuffer, supportedMimeTypes } from "file-type";

export type CheckedType = { ok: true; contentType: string } | { ok: false; error: string };

const GENERIC = new Set(["", "application/octet-stream", "binary/octet-stream", "application/unknown"]);
const EXECUTABLES = new Set(["application/x-msdownload", "application/x-elf", "application/x-mach-binary", "application/x-sharedlib"]);
// Containers whose inner format the library may not name: any declared format built on them passes.
const CONTAINERS = new Set(["application/zip", "application/x-cfb"]);
const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "application/x-pdf": "application/pdf",
  "application/x-zip-compressed": "application/zip",
  "image/x-png": "image/png",
  "text/xml": "application/xml",
};
const TOKEN = /^[a-z0-9!#$&^_.+-]{1,100}\/[a-z0-9!#$&^_.+-]{1,100}$/;

const canonical = (type: string) => ALIASES[type] ?? type;
/** Textual formats carry no reliable signature: a missing one is no evidence against them. */
const textual = (type: string) => type.startsWith("text/") || type === "application/xml" || type.endsWith("+xml") || type.endsWith("+json");

/** The type to send the attachment with, or why it is refused. */
export async function checkContentType(declared: string | null | undefined, content: Uint8Array): Promise<CheckedType> {
  const type = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "" && !TOKEN.test(type)) return { ok: false, error: "content_type must be a MIME type such as application/pdf" };
  const detected = await fileTypeFromBuffer(content);
  const found = detected ? canonical(detected.mime) : null;
  if (found && EXECUTABLES.has(found)) return { ok: false, error: `executable files cannot be attached (the bytes are ${found})` };
  if (GENERIC.has(type)) return { ok: true, contentType: found ?? "application/octet-stream" };
  const wanted = canonical(type);
  if (found) {
    const inContainer = CONTAINERS.has(found) && (wanted.startsWith("application/") || !supportedMimeTypes.has(wanted as never));
    if (found === wanted || inContainer || (found === "application/xml" && textual(wanted))) return { ok: true, contentType: type };
    return { ok: false, error: `content_type ${type} does not match the file's bytes, which are ${found}` };
  }
  if (supportedMimeTypes.has(wanted as never) && !textual(wanted)) {
    return { ok: false, error: `content_type ${type} does not match the file's bytes (no ${type} signature found)` };
  }
  return { ok: true, contentType: type };
}
