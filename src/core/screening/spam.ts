// Step 2, spam, in two halves. askSpamScanner is the scanner a failure retries the job for, so it
// runs before the work that should not repeat (delivery reports). judgeSpam then weighs the edge
// verdict (a trusted upstream's flag, DMARC under p=reject, spamd or Rspamd as SPAM_SCANNER chose)
// and the built-in classifier.

import { adjustForAccount } from "../../comprehension/learning/adjust.ts";
import { learningTokens } from "../../comprehension/learning/tokens.ts";
import { checkWithRspamd } from "../../comprehension/scanners/rspamd.ts";
import { checkWithSpamd } from "../../comprehension/scanners/spamd.ts";
import { classifySpam, loadSpamModel, type SpamModel } from "../../comprehension/spam/classifier.ts";
import type { AuthOutcome } from "../../mail/authenticate.ts";
import type { Services } from "../services.ts";
import { accountStatsFor } from "./feedback.ts";
import { edgeSpamVerdict } from "./inputs.ts";
import type { Attempt, EdgeScan, EdgeSpamDetails, ScreeningRow, SpamDetails, SpamJudgement, VirusRisk } from "./types.ts";

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

/**
 * The edge scanner's verdict (spamd or Rspamd), or null when none is configured, the mail is a
 * virus, or the scanner kept failing. Both scanners fail the same way: before the job's last
 * attempt the error retries the job; on the last one the message goes on without an edge verdict.
 */
export async function askSpamScanner(
  svc: Services,
  message: Pick<ScreeningRow, "remote_ip" | "helo" | "mail_from" | "mailbox_address">,
  raw: Uint8Array,
  virusRisk: VirusRisk,
  attempt: Attempt,
): Promise<EdgeScan | null> {
  const { config, log } = svc;
  const { spamScanner: scanner, spamdAddress, rspamdUrl, timeoutMs } = config.screening;
  if (virusRisk === "high" || !scanner) return null;
  try {
    if (scanner === "spamd") return { scanner, ...(await checkWithSpamd(spamdAddress!, raw, timeoutMs)) };
    const envelope = {
      from: message.mail_from,
      rcpt: message.mailbox_address,
      ip: message.remote_ip,
      helo: message.helo,
      queueId: attempt.messageId,
    };
    return { scanner, ...(await checkWithRspamd(rspamdUrl!, raw, timeoutMs, envelope)) };
  } catch (error) {
    if (!attempt.lastChance) throw error;
    log.error(`screening.${scanner}_failed`, { message_id: attempt.messageId, error: String((error as Error).message) });
    return null;
  }
}

/**
 * The global classifier's score, then the account's own corrections on top of it
 * (src/core/screening/feedback.ts, src/comprehension/learning/adjust.ts): whatever model produces the
 * global score, this is the one place the two meet.
 */
async function classifierScore(
  svc: Services,
  message: Pick<ScreeningRow, "account_id" | "subject" | "body_clean" | "from_addr" | "received_at">,
  raw: Uint8Array,
) {
  const { config, sql } = svc;
  // Arrival time: the classifier compares the Date header with it.
  const receivedAt = message.received_at ? new Date(message.received_at) : undefined;
  const model = await (configuredSpamModel(config.screening.spamModelPath) ?? loadSpamModel());
  const verdict = await classifySpam(raw, model, { receivedAt });
  const tokens = learningTokens({ subject: message.subject, body: message.body_clean ?? "", fromAddr: message.from_addr });
  const stats = await accountStatsFor(sql, { accountId: message.account_id }, tokens);
  // The threshold: the model's own (chosen for at most 1% of validation ham flagged) unless
  // SPAM_CLASSIFIER_THRESHOLD overrides it. The reasons: what pushed the global score up.
  const threshold = config.screening.spamClassifierThreshold ?? model.threshold;
  return { ...adjustForAccount(stats, tokens, verdict.score), threshold, reasons: verdict.reasons };
}

export async function judgeSpam(
  svc: Services,
  message: Pick<ScreeningRow, "id" | "headers" | "received_at" | "account_id" | "subject" | "body_clean" | "from_addr">,
  raw: Uint8Array,
  auth: AuthOutcome,
  scan: EdgeScan | null,
  virusRisk: VirusRisk,
): Promise<SpamJudgement> {
  const { config, log } = svc;
  const details: SpamDetails = {};
  if (virusRisk === "high") {
    // The virus verdict decides; the classifier's is still recorded in the screening report
    // (spam_risk stays null: the contract's "spam scoring never ran" (docs/api.md) for the status it decided).
    try {
      const adjusted = await classifierScore(svc, message, raw);
      details.classifier = classifierDetails(adjusted);
    } catch {
      details.classifier = { error: true };
    }
    return { risk: null, details };
  }
  // The edge verdict: a trusted upstream's flag or DMARC under p=reject, then the edge scanner if configured.
  const flaggedByHeaders = edgeSpamVerdict(message.headers ?? {}, auth, config);
  let edgeFlagged = flaggedByHeaders;
  let edge: EdgeSpamDetails = { flagged: flaggedByHeaders, source: flaggedByHeaders ? "header_or_dmarc" : "none" };
  if (scan) {
    edgeFlagged = flaggedByHeaders || scan.spam;
    edge = {
      flagged: edgeFlagged,
      source: flaggedByHeaders ? "header_or_dmarc" : scan.scanner,
      // the scanner's own figures, whichever source decided
      score: scan.score,
      threshold: scan.threshold,
      // Rspamd's action decided its flag (src/comprehension/scanners/rspamd.ts)
      ...(scan.action === undefined ? {} : { action: scan.action }),
    };
  }
  details.edge = edge;
  try {
    const adjusted = await classifierScore(svc, message, raw);
    // On its own the classifier quarantines only above its threshold: a false positive hides a
    // password reset or an order notice from the agent.
    details.classifier = classifierDetails(adjusted);
    return { risk: edgeFlagged || details.classifier.spam ? "high" : "low", details };
  } catch (error) {
    log.error("screening.classifier_failed", { message_id: message.id, error: String((error as Error).message) });
    details.classifier = { error: true };
    // The edge's verdict still stands; otherwise the message proceeds unquarantined.
    return { risk: edgeFlagged ? "high" : "error", details };
  }
}

function classifierDetails(adjusted: Awaited<ReturnType<typeof classifierScore>>) {
  const { threshold } = adjusted;
  const spam = adjusted.score >= threshold;
  return {
    spam,
    score: adjusted.score,
    threshold,
    // What pushed the global score up, in words (phishing and spam cues), when it flags.
    ...(spam && adjusted.reasons.length > 0 ? { reasons: adjusted.reasons } : {}),
    // The account's corrections and how far they moved the score (absent without any).
    ...(adjusted.account === null && adjusted.corrections.spam + adjusted.corrections.ham === 0
      ? {}
      : {
          global_score: adjusted.global,
          account: { score: adjusted.account, coverage: adjusted.coverage, tokens: adjusted.evidence, corrections: adjusted.corrections },
        }),
  };
}
