// Step 2, spam, in two halves. askSpamd is the scanner a failure retries the job for, so it runs
// before the work that should not repeat (delivery reports). judgeSpam then weighs the edge
// verdict (a trusted upstream's flag, DMARC under p=reject, spamd) and the built-in classifier.
import { checkWithSpamd, type SpamdVerdict } from "../../comprehension/scanners/spamd.ts";
import { classifySpam, loadSpamModel, type SpamModel } from "../../comprehension/spam/classifier.ts";
import type { AuthOutcome } from "../../mail/authenticate.ts";
import { edgeSpamVerdict } from "../screening-inputs.ts";
import type { Services } from "../services.ts";
import type { Attempt, EdgeSpamDetails, ScreeningRow, SpamDetails, SpamJudgement, VirusRisk } from "./types.ts";

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

/** spamd's verdict, or null when it is not configured, the mail is a virus, or it kept failing. */
export async function askSpamd(svc: Services, raw: Uint8Array, virusRisk: VirusRisk, attempt: Attempt): Promise<SpamdVerdict | null> {
  const { config, log } = svc;
  if (virusRisk === "high" || !config.screening.spamdAddress) return null;
  try {
    return await checkWithSpamd(config.screening.spamdAddress, raw, config.screening.timeoutMs);
  } catch (error) {
    if (!attempt.lastChance) throw error;
    log.error("screening.spamd_failed", { message_id: attempt.messageId, error: String((error as Error).message) });
    return null;
  }
}

export async function judgeSpam(
  svc: Services,
  message: Pick<ScreeningRow, "id" | "headers" | "received_at">,
  raw: Uint8Array,
  auth: AuthOutcome,
  spamd: SpamdVerdict | null,
  virusRisk: VirusRisk,
): Promise<SpamJudgement> {
  const { config, log } = svc;
  const details: SpamDetails = {};
  if (virusRisk === "high") return { risk: null, details };
  // The edge verdict: a trusted upstream's flag or DMARC under p=reject, then spamd if configured.
  const flaggedByHeaders = edgeSpamVerdict(message.headers ?? {}, auth, config);
  let edgeFlagged = flaggedByHeaders;
  let edge: EdgeSpamDetails = { flagged: flaggedByHeaders, source: flaggedByHeaders ? "header_or_dmarc" : "none" };
  if (spamd) {
    edgeFlagged = flaggedByHeaders || spamd.spam;
    edge = {
      flagged: edgeFlagged,
      source: flaggedByHeaders ? "header_or_dmarc" : "spamd",
      // spamd's own figures, whichever source decided
      score: spamd.score,
      threshold: spamd.threshold,
    };
  }
  details.edge = edge;
  try {
    // Arrival time: the classifier compares the Date header with it.
    const receivedAt = message.received_at ? new Date(message.received_at) : undefined;
    const verdict = await classifySpam(raw, await configuredSpamModel(config.screening.spamModelPath), { receivedAt });
    // On its own the classifier quarantines only when very sure (SPAM_CLASSIFIER_THRESHOLD): a
    // false positive hides a password reset or an order notice from the agent.
    const flagged = verdict.score >= config.screening.spamClassifierThreshold;
    details.classifier = { spam: flagged, score: verdict.score, threshold: config.screening.spamClassifierThreshold };
    return { risk: edgeFlagged || flagged ? "high" : "low", details };
  } catch (error) {
    log.error("screening.classifier_failed", { message_id: message.id, error: String((error as Error).message) });
    details.classifier = { error: true };
    // The edge's verdict still stands; otherwise the message proceeds unquarantined.
    return { risk: edgeFlagged ? "high" : "error", details };
  }
}
