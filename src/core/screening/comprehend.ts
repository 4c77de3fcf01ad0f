// Step 4, comprehension: classification and extraction, unless an earlier step rules it out
// (a virus: nothing; spam: classification only; injection risk: nothing). The screening report
// (what was unread, the injection and spam details) is stored beside the verdict whatever it is.

import { type ComprehensionResult, chooseEngine } from "../../comprehension/engine.ts";
import type { SenderRisk } from "../../comprehension/sender-risk/assess.ts";
import { detectAutomatic } from "../../comprehension/understanding/automatic.ts";
import { classifyMessage } from "../../comprehension/understanding/classify.ts";
import type { AttachmentReading } from "../attachment-reading.ts";
import { calendarOf } from "../calendar.ts";
import type { Services } from "../services.ts";
import { comprehensionInput } from "./inputs.ts";
import type { ComprehensionOutcome, InjectionScreening, ScreeningRow, SpamJudgement, StoredComprehension, VirusRisk } from "./types.ts";

export type Verdicts = { virusRisk: VirusRisk; spam: SpamJudgement; injection: InjectionScreening; senderRisk: SenderRisk };

export async function comprehend(svc: Services, message: ScreeningRow, verdicts: Verdicts): Promise<StoredComprehension> {
  const { sql, config } = svc;
  const { virusRisk, spam, injection, senderRisk } = verdicts;
  // Names and types only; applyDeliveryReports reads the bytes of report parts alone. One read
  // serving both would load every attachment's bytes or teach this query what a report part is.
  const attachments = await sql<{ filename: string | null; content_type: string; text_status: string | null; text_error: string | null }[]>`
    select filename, content_type, text_status, text_error from attachments where message_id = ${message.id} order by id`;
  // An attachment that could not be read (refused by a budget, killed, broken) is content left
  // unread, as much as a MIME part past the parser's limit.
  const unread = [
    message.unread_content,
    ...attachments
      .filter((attachment) => attachment.text_status === "error" || attachment.text_status === "too_large")
      .map(
        (attachment) =>
          `attachment ${attachment.filename ?? "(unnamed)"} was not read (${attachment.text_error ?? attachment.text_status})`,
      ),
  ]
    .filter(Boolean)
    .join("; ");
  // Attachment text that is not risky is offered to comprehension after the body, so an invoice
  // PDF yields its facts.
  const input = comprehensionInput(
    { ...message, body_clean: withAttachmentText(message.body_clean, injection.readings) },
    message.headers ?? {},
    attachments,
  );
  const riskyAttachment = injection.attachments.find((verdict) => verdict.risky);

  let outcome: ComprehensionOutcome;
  if (virusRisk === "high") {
    outcome = { status: "skipped_virus", classification: null, extraction: null, extraction_error: null, confidence: 0 };
  } else if (spam.risk === "high") {
    const classification = classifyMessage(input);
    outcome = { status: "skipped_spam", classification, extraction: null, extraction_error: null, confidence: classification.confidence };
  } else if (injection.body.risky || riskyAttachment) {
    const confidence = Math.max(injection.body.score, riskyAttachment?.score ?? 0);
    outcome = { status: "skipped_injection_risk", classification: null, extraction: null, extraction_error: null, confidence };
  } else {
    const engine = chooseEngine({
      llmUrl: config.llm.url,
      llmModel: config.llm.model,
      llmApiKey: config.llm.apiKey,
      llmTimeoutMs: config.llm.timeoutMs,
    });
    const result = await engine.comprehend(input);
    outcome = unread ? readInPart(result, unread) : { ...result };
  }

  // Sender risk travels inside classification too: the webhook payload's classification object
  // is where the contract (docs/api.md) lets its shape be ours (null classification stays null).
  const sender_risk = { level: senderRisk.level, signals: senderRisk.signals };
  if (outcome.classification) outcome = { ...outcome, classification: { ...outcome.classification, sender_risk } };
  // Every verdict is recorded, whichever decided the status (decided_by names it).
  const decided_by =
    outcome.status === "skipped_virus"
      ? "virus"
      : outcome.status === "skipped_spam"
        ? "spam"
        : outcome.status === "skipped_injection_risk"
          ? "injection"
          : null;
  const stored: StoredComprehension = {
    ...outcome,
    // Whatever the verdict: the loop guard asks it of every message an agent may answer.
    automatic: detectAutomatic({ ...input, bodyClean: message.body_clean ?? "" }),
    injection: injection.body,
    spam: spam.details,
    sender_risk: { ...sender_risk, score: senderRisk.score },
    decided_by,
  };
  // The screening report says what was not read, whatever the verdict.
  if (unread) stored.unread_content = unread;
  if (injection.attachments.length > 0) stored.attachment_injection = injection.attachments;
  // An invitation is structured data an agent answers with POST /messages/{id}/rsvp; malware gets nothing.
  if (virusRisk !== "high") {
    const calendar = await calendarOf(svc, sql, message.id);
    if (calendar) stored.calendar = calendar;
  }
  return stored;
}

/**
 * Fails closed on content the parser left unread: what was read may be comprehended, but the
 * message is never reported `complete` (`partial`, with the reason as extraction_error).
 */
function readInPart(result: ComprehensionResult, unread: string): ComprehensionOutcome {
  const message = `content left unread: ${unread}`;
  const previous = result.extraction_error;
  return {
    ...result,
    status: "partial",
    extraction_error: previous ? { ...previous, message: `${previous.message}; ${message}` } : { message },
  };
}

/** The body, then each attachment's text that the injection detector did not flag. */
function withAttachmentText(body: string | null, readings: AttachmentReading[]): string | null {
  const texts = readings
    .filter((reading) => reading.text && !reading.injection?.risky)
    .map((reading) => `[attachment ${reading.filename ?? ""}]\n${reading.text!.slice(0, 20_000)}`);
  if (texts.length === 0) return body;
  return [body ?? "", ...texts].join("\n\n");
}
