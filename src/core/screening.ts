// Screening and comprehension of one inbound message, run by the process_inbound task after the
// listener committed it: sender authentication, bounce handling, virus and spam verdicts,
// prompt-injection risk, then classification and extraction. The result and the webhook event
// commit in one transaction; a message already processed is left alone (the task is idempotent).
import { checkWithSpamd } from "../comprehension/scanners/spamd.ts";
import { scanWithClamd } from "../comprehension/scanners/clamd.ts";
import { classifySpam, loadSpamModel, type SpamModel } from "../comprehension/spam/classifier.ts";
import { scoreInjectionRisk } from "../comprehension/injection/risk.ts";
import { chooseEngine, type ComprehensionResult } from "../comprehension/engine.ts";
import { classifyMessage } from "../comprehension/understanding/classify.ts";
import { authenticateInbound, type AuthOutcome } from "../mail/authenticate.ts";
import { applyDeliveryReports } from "./bounces.ts";
import type { Services } from "./services.ts";
import { createMessageReceivedEvent } from "./webhooks.ts";
import { comprehensionInput, edgeSpamVerdict } from "./screening-inputs.ts";
import { readAttachments, type AttachmentReading } from "./attachment-reading.ts";
import { replyText } from "../mail/reply-text.ts";

// A model file other than the shipped one (SPAM_MODEL_PATH), read once per path; a failed read is
// not cached, so fixing the file fixes the next message.
const spamModels = new Map<string, Promise<SpamModel>>();
function configuredSpamModel(path: string | null): Promise<SpamModel> | undefined {
  if (!path) return undefined;
  let model = spamModels.get(path);
  if (!model) {
    model = loadSpamModel(path);
    model.catch(() => spamModels.delete(path));
    spamModels.set(path, model);
  }
  return model;
}

/** Scanner failures retry the job this many times before the message goes on without a verdict. */
export const SCANNER_ATTEMPTS = 3;

type ScreeningRow = {
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
  content: Uint8Array | null;
  remote_ip: string | null;
  helo: string | null;
  mail_from: string | null;
  deliver_spam: boolean;
  extraction_schema: Record<string, unknown> | null;
};

export type ComprehensionStatus = "complete" | "partial" | "skipped_injection_risk" | "skipped_spam" | "skipped_virus";

/**
 * Fails closed on content the parser left unread: what was read may be comprehended, but the
 * message is never reported `complete` (SPEC's `partial`, with the reason as extraction_error).
 */
function readInPart(result: ComprehensionResult, unread: string): Record<string, unknown> {
  const message = `content left unread: ${unread}`;
  const previous = result.extraction_error;
  return {
    ...result,
    status: "partial",
    extraction_error: previous ? { ...previous, message: `${previous.message}; ${message}` } : { message },
  };
}

export async function screenMessage(svc: Services, messageId: string, jobAttempt = 1): Promise<void> {
  const { sql, config, log } = svc;
  const [message] = await sql<ScreeningRow[]>`
    select m.id, m.account_id, m.mailbox_id, m.thread_id, m.from_addr, m.subject, m.body_clean, m.body_raw, m.hidden_text, m.truncated,
      m.sanitization, m.processed_at, m.unread_content, m.headers, r.content, r.remote_ip, r.helo, r.mail_from, r.received_at,
      b.deliver_spam, s.schema as extraction_schema
    from messages m
      left join raw_messages r on r.id = m.raw_message_id
      join mailboxes b on b.id = m.mailbox_id
      left join extraction_schemas s on s.id = b.extraction_schema_id
    where m.id = ${messageId}`;
  if (!message) return log.warn("inbound.missing", { message_id: messageId });
  if (message.processed_at) return;
  const raw: Uint8Array = message.content ?? new Uint8Array();
  const lastChance = jobAttempt >= SCANNER_ATTEMPTS;

  // Virus: high is stored but never delivered; null when no scanner is configured.
  let virusRisk: "low" | "high" | null = null;
  if (config.screening.clamdAddress) {
    try {
      virusRisk = (await scanWithClamd(config.screening.clamdAddress, raw, config.screening.timeoutMs)).infected ? "high" : "low";
    } catch (error) {
      if (!lastChance) throw error; // the job is retried; after the last try the message goes on
      log.error("screening.clamd_failed", { message_id: messageId, error: String((error as Error).message) });
    }
  }

  // spamd is the other scanner a failure retries for; asked before the work that should not repeat.
  let spamd: Awaited<ReturnType<typeof checkWithSpamd>> | null = null;
  if (virusRisk !== "high" && config.screening.spamdAddress) {
    try {
      spamd = await checkWithSpamd(config.screening.spamdAddress, raw, config.screening.timeoutMs);
    } catch (error) {
      if (!lastChance) throw error;
      log.error("screening.spamd_failed", { message_id: messageId, error: String((error as Error).message) });
    }
  }

  const auth: AuthOutcome = await authenticateInbound({
    raw,
    remoteIp: message.remote_ip ?? "",
    helo: message.helo ?? "",
    mailFrom: message.mail_from ?? "",
    // Local deliveries have no connection to check.
    mode: message.remote_ip ? config.authMode : "off",
    trustedAuthservIds: config.trustedAuthservIds,
    resolver: svc.resolve,
    mtaHostname: config.smtp.hostname,
  });
  const report = await applyDeliveryReports(sql, { id: message.id, account_id: message.account_id });

  const headers = message.headers ?? {};
  let spamRisk: "low" | "high" | "error" | null = null;
  const spamDetails: Record<string, unknown> = {};
  if (virusRisk !== "high") {
    // The edge verdict: a trusted upstream's flag or DMARC under p=reject, then spamd if configured.
    const flaggedByHeaders = edgeSpamVerdict(headers, auth, config);
    let edgeFlagged = flaggedByHeaders;
    spamDetails.edge = { flagged: flaggedByHeaders, source: flaggedByHeaders ? "header_or_dmarc" : "none" };
    if (spamd) {
      edgeFlagged = flaggedByHeaders || spamd.spam;
      spamDetails.edge = {
        flagged: edgeFlagged,
        source: flaggedByHeaders ? "header_or_dmarc" : "spamd",
        // spamd's own figures, whichever source decided
        score: spamd.score,
        threshold: spamd.threshold,
      };
    }
    try {
      // Arrival time: the classifier compares the Date header with it.
      const receivedAt = message.received_at ? new Date(message.received_at) : undefined;
      const verdict = await classifySpam(raw, await configuredSpamModel(config.screening.spamModelPath), { receivedAt });
      // On its own the classifier quarantines only when very sure (SPAM_CLASSIFIER_THRESHOLD): a
      // false positive hides a password reset or an order notice from the agent.
      const flagged = verdict.score >= config.screening.spamClassifierThreshold;
      spamDetails.classifier = { spam: flagged, score: verdict.score, threshold: config.screening.spamClassifierThreshold };
      spamRisk = edgeFlagged || flagged ? "high" : "low";
    } catch (error) {
      log.error("screening.classifier_failed", { message_id: messageId, error: String((error as Error).message) });
      spamDetails.classifier = { error: true };
      // The edge's verdict still stands; otherwise the message proceeds unquarantined.
      spamRisk = edgeFlagged ? "high" : "error";
    }
  }

  // Names and types only; applyDeliveryReports reads the bytes of report parts alone. One read
  // serving both would load every attachment's bytes or teach this query what a report part is.
  const attachments = await sql<{ filename: string | null; content_type: string }[]>`
    select filename, content_type from attachments where message_id = ${messageId} order by id`;
  // Attachment text (never of mail flagged as a virus) is screened like the body; what is not
  // risky is offered to comprehension after the body, so an invoice PDF yields its facts.
  const readings = virusRisk === "high" ? [] : await readAttachments(svc, messageId);
  const attachmentInjection = readings.filter((reading) => reading.injection).map((reading) => ({
    attachment_id: reading.id,
    filename: reading.filename,
    score: reading.injection!.score,
    risky: reading.injection!.risky,
    signals: reading.injection!.signals,
  }));
  const riskyAttachment = attachmentInjection.find((verdict) => verdict.risky);
  const input = comprehensionInput({ ...message, body_clean: withAttachmentText(message.body_clean, readings) }, headers, attachments);
  const injection = scoreInjectionRisk({
    subject: message.subject,
    bodyClean: message.body_clean ?? "",
    hiddenText: message.hidden_text ?? "",
    report: (message.sanitization ?? {}) as Record<string, number>,
  });
  const injectionSummary = { score: injection.score, risky: injection.risky, threshold: injection.threshold, signals: injection.signals };

  let comprehension: Record<string, unknown>;
  if (virusRisk === "high") {
    comprehension = { status: "skipped_virus", classification: null, extraction: null, extraction_error: null, confidence: 0 };
  } else if (spamRisk === "high") {
    const classification = classifyMessage(input);
    comprehension = { status: "skipped_spam", classification, extraction: null, extraction_error: null, confidence: classification.confidence };
  } else if (injection.risky || riskyAttachment) {
    const confidence = Math.max(injection.score, riskyAttachment?.score ?? 0);
    comprehension = { status: "skipped_injection_risk", classification: null, extraction: null, extraction_error: null, confidence };
  } else {
    const engine = chooseEngine({ llmUrl: config.llm.url, llmModel: config.llm.model, llmApiKey: config.llm.apiKey, llmTimeoutMs: config.llm.timeoutMs });
    const result = await engine.comprehend(input);
    comprehension = message.unread_content ? readInPart(result, message.unread_content) : { ...result };
  }
  // The screening report says what was not read, whatever the verdict.
  if (message.unread_content) comprehension.unread_content = message.unread_content;
  comprehension.injection = injectionSummary;
  if (attachmentInjection.length > 0) comprehension.attachment_injection = attachmentInjection;
  comprehension.spam = spamDetails;

  const status = comprehension.status as ComprehensionStatus;
  const deliver = status !== "skipped_virus" && (status !== "skipped_spam" || message.deliver_spam === true);
  await sql.begin(async (tx) => {
    const updated = await tx`
      update messages set auth_results = ${auth.results ? tx.json(auth.results) : null}, spam_risk = ${spamRisk}, virus_risk = ${virusRisk},
        comprehension = ${tx.json(comprehension as never)}, processed_at = now(),
        reply_text = ${replyText({ bodyClean: message.body_clean, bodyRaw: message.body_raw, maxChars: config.bodyCleanMaxChars })}
      where id = ${messageId} and processed_at is null returning id`;
    if (updated.length === 0 || !deliver) return;
    await createMessageReceivedEvent(tx, message.account_id, {
      message_id: message.id,
      mailbox_id: message.mailbox_id,
      thread_id: message.thread_id,
      from: message.from_addr,
      subject: message.subject,
      body: message.body_clean ?? "",
      truncated: message.truncated,
      sanitization: message.sanitization ?? {},
      comprehension_status: status,
      classification: (comprehension.classification as Record<string, unknown> | null) ?? null,
      extraction: status === "skipped_spam" ? null : ((comprehension.extraction as Record<string, unknown> | null) ?? null),
      extraction_error: (comprehension.extraction_error as Record<string, unknown> | null) ?? null,
      confidence: Number(comprehension.confidence ?? 0),
    });
  });
  log.info("inbound.processed", {
    message_id: messageId,
    auth: auth.results,
    report: report.kind,
    virus_risk: virusRisk,
    spam_risk: spamRisk,
    injection_score: injection.score,
    comprehension_status: status,
    webhook: deliver,
  });
}

/** The body, then each attachment's text that the injection detector did not flag. */
function withAttachmentText(body: string | null, readings: AttachmentReading[]): string | null {
  const texts = readings.filter((reading) => reading.text && !reading.injection?.risky).map((reading) => `[attachment ${reading.filename ?? ""}]\n${reading.text!.slice(0, 20_000)}`);
  if (texts.length === 0) return body;
  return [body ?? "", ...texts].join("\n\n");
}
