// Reading a message's attachments, for the process_inbound task: each attachment's text is
// extracted once (mail/attachment-text.ts), screened for prompt injection by the same detector as
// the body, and stored on the attachment; the texts together go into the message's search
// document. An attachment already read is not read again when the job is retried.

import { scoreInjectionRisk } from "../comprehension/injection/risk.ts";
import type { Config } from "../config.ts";
import {
  type AttachmentTextLimits,
  DEFAULT_ATTACHMENT_TEXT_LIMITS,
  extractAttachmentText,
  findPrlimit,
  findTesseract,
} from "../mail/attachment-text.ts";
import { fullContent, smallContent } from "./bytea-slices.ts";
import { contentBytes } from "./content.ts";
import type { Services } from "./services.ts";

export type AttachmentReading = {
  id: string;
  filename: string | null;
  text: string | null;
  injection: { score: number; risky: boolean; threshold: number; signals: { name: string; weight: number; evidence: string }[] } | null;
};

/** Everything searched over all of a message's attachments together. */
const MAX_MESSAGE_ATTACHMENT_TEXT = 300_000;

let tools: Promise<[string | null, string | null]> | null = null;

/** The budgets of extraction: the service's configuration, or the defaults. */
export async function attachmentTextLimits(budgets?: Config["attachmentReading"]): Promise<AttachmentTextLimits> {
  tools ??= Promise.all([findTesseract(), findPrlimit()]);
  const [tesseract, prlimit] = await tools;
  return { ...DEFAULT_ATTACHMENT_TEXT_LIMITS, ...budgets, tesseract, prlimit };
}

export async function readAttachments(svc: Services, messageId: string): Promise<AttachmentReading[]> {
  const { sql, log } = svc;
  const pending = await sql`select id from attachments where message_id = ${messageId} and text_status is null order by id`;
  if (pending.length > 0) {
    const limits = await attachmentTextLimits(svc.config.attachmentReading);
    // One attachment's bytes in memory at a time.
    for (const { id } of pending) {
      const [row] =
        await sql`select filename, content_type, ${smallContent(sql, "content")}, blob_key, sha256 from attachments where id = ${id}`;
      if (!row) continue;
      row.content = await fullContent(sql, "attachments", id, row as never);
      // Before the error mark below: a store that cannot be read fails the job, to be retried.
      const attachment = {
        filename: row.filename as string | null,
        content_type: row.content_type as string,
        content: await contentBytes(svc, row as never),
      };
      const started = performance.now();
      // Recorded first: if this file takes the process down, the retried job skips it.
      await sql`update attachments set text_status = 'error', text_error = 'extraction did not finish' where id = ${id}`;
      const result = await extractAttachmentText(
        { contentType: attachment.content_type, filename: attachment.filename, content: attachment.content },
        limits,
      );
      const injection = result.text ? scoreInjectionRisk({ subject: "", bodyClean: result.text, hiddenText: "", report: {} }) : null;
      await sql`
        update attachments set text = ${result.text}, text_status = ${result.status}, text_method = ${result.method},
          text_error = ${result.error}, text_injection = ${injection ? sql.json(injection as never) : null}
        where id = ${id}`;
      log.info("attachment.read", {
        message_id: messageId,
        attachment_id: id,
        status: result.status,
        method: result.method,
        ...(result.error ? { error: result.error } : {}),
        chars: result.text?.length ?? 0,
        injection_risky: injection?.risky ?? false,
        duration_ms: Math.round(performance.now() - started),
      });
    }
  }
  const rows = await sql`
    select id, filename, text, text_injection from attachments where message_id = ${messageId} and text is not null order by id`;
  const readings = rows.map(
    (row): AttachmentReading => ({ id: row.id, filename: row.filename, text: row.text, injection: row.text_injection }),
  );
  // No text read: attachment_text stays null as accepted, and most mail skips this write.
  if (readings.length === 0) return readings;
  const combined = readings
    .map((reading) => `${reading.filename ?? "attachment"}\n${reading.text}`)
    .join("\n\n")
    .slice(0, MAX_MESSAGE_ATTACHMENT_TEXT);
  await sql`update messages set attachment_text = ${combined || null} where id = ${messageId}`;
  return readings;
}
