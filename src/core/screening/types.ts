// What the screening steps read and what each returns. The steps run in order (virus, spam,
// injection, comprehension, record and notify); each takes the results of the ones before it.

import type { Classification, ComprehensionResult, ExtractionError } from "../../comprehension/engine.ts";
import type { InjectionRisk } from "../../comprehension/injection/risk.ts";
import type { Automatic } from "../../comprehension/understanding/automatic.ts";
import type { SpamScannerName } from "../../config.ts";
import type { CalendarInfo } from "../../mail/calendar.ts";
import type { AttachmentReading } from "../attachment-reading.ts";

/** The stored message with its raw bytes, envelope and mailbox settings, as screening reads it. */
export type ScreeningRow = {
  id: string;
  account_id: string;
  mailbox_id: string;
  thread_id: string;
  from_addr: string;
  subject: string;
  body_clean: string | null;
  body_raw: string | null;
  hidden_text: string | null;
  truncated: boolean;
  sanitization: Record<string, unknown> | null;
  processed_at: string | null;
  unread_content: string | null;
  headers: Record<string, string> | null;
  received_at: Date | null;
  /** The raw message's bytes when small; a large one is read by its size (core/bytea-slices.ts). */
  content: Uint8Array | null;
  content_size: number | null;
  raw_id: string | null;
  /** The raw message's object in the store (BLOB_STORE_URL), when it is not in `content`. */
  blob_key: string | null;
  raw_sha256: string | null;
  remote_ip: string | null;
  helo: string | null;
  mail_from: string | null;
  /** the mailbox the message was delivered to: the envelope recipient an edge scanner is told */
  mailbox_address: string;
  deliver_spam: boolean;
  extraction_schema: Record<string, unknown> | null;
};

/** A scanner step's place in the job's retries: before the last attempt a scanner failure throws. */
export type Attempt = { messageId: string; lastChance: boolean };

/** high is stored but never delivered; null when no scanner is configured or it kept failing. */
export type VirusRisk = "low" | "high" | null;

/** null when the virus verdict was high (spam is not judged); error when the classifier failed. */
export type SpamRisk = "low" | "high" | "error" | null;

/** What the edge scanner said: spamd's verdict, or Rspamd's with the action that decided it. */
export type EdgeScan = { scanner: SpamScannerName; spam: boolean; score: number; threshold: number; action?: string };

export type EdgeSpamDetails =
  | { flagged: boolean; source: "header_or_dmarc" | "none" }
  | { flagged: boolean; source: "header_or_dmarc" | SpamScannerName; score: number; threshold: number; action?: string };

export type ClassifierSpamDetails =
  | {
      spam: boolean;
      score: number;
      threshold: number;
      /** when the classifier flagged: what pushed its score up most, in words (classifier.ts spamReasons) */
      reasons?: string[];
      /** with account corrections: the global model's score before they moved it */
      global_score?: number;
      account?: { score: number | null; coverage: number; tokens: number; corrections: { spam: number; ham: number } };
    }
  | { error: true };

/** Stored as comprehension.spam: empty when the message was a virus. */
export type SpamDetails = { edge?: EdgeSpamDetails; classifier?: ClassifierSpamDetails };

export type SpamJudgement = { risk: SpamRisk; details: SpamDetails };

export type InjectionSummary = Pick<InjectionRisk, "score" | "risky" | "threshold" | "signals">;

export type AttachmentInjection = {
  attachment_id: string;
  filename: string | null;
  score: number;
  risky: boolean;
  signals: InjectionSummary["signals"];
};

export type InjectionScreening = {
  /** The body's verdict (subject, clean body, hidden text). */
  body: InjectionSummary;
  /** One verdict per attachment whose text was read. */
  attachments: AttachmentInjection[];
  /** The attachments' text, offered to comprehension where not risky. */
  readings: AttachmentReading[];
};

export type ComprehensionStatus = "complete" | "partial" | "skipped_injection_risk" | "skipped_spam" | "skipped_virus";

/** The verdict of the comprehension step, before the screening report is added to it. */
export type ComprehensionOutcome = {
  status: ComprehensionStatus;
  classification: (Classification & { sender_risk?: { level: string; signals: { name: string; detail: string }[] } }) | null;
  extraction: ComprehensionResult["extraction"];
  extraction_error: ExtractionError | null;
  confidence: number;
  engine?: ComprehensionResult["engine"];
};

/** What messages.comprehension stores: the verdict and the screening report beside it. */
export type StoredComprehension = ComprehensionOutcome & {
  /** null: a person wrote it; otherwise what kind of automatic mail and why (src/comprehension/understanding/automatic.ts) */
  automatic: Automatic | null;
  unread_content?: string;
  injection: InjectionSummary;
  /** src/comprehension/sender-risk/assess.ts; also inside classification when there is one */
  sender_risk: { level: "low" | "elevated" | "high"; score: number; signals: { name: string; detail: string }[] };
  /** the verdict that decided the status (null when none skipped comprehension) */
  decided_by: "virus" | "spam" | "injection" | null;
  attachment_injection?: AttachmentInjection[];
  spam: SpamDetails;
  /** the calendar invitation the message carries (core/calendar.ts), when it has one */
  calendar?: CalendarInfo;
};
