// Step 3, prompt injection: the body's verdict, and one per attachment whose text was read
// (never for mail flagged as a virus: its attachments are not opened).
import { scoreInjectionRisk } from "../../comprehension/injection/risk.ts";
import { readAttachments } from "../attachment-reading.ts";
import type { Services } from "../services.ts";
import type { InjectionScreening, ScreeningRow, VirusRisk } from "./types.ts";

export async function screenInjection(
  svc: Services,
  message: Pick<ScreeningRow, "id" | "subject" | "body_clean" | "hidden_text" | "sanitization">,
  virusRisk: VirusRisk,
): Promise<InjectionScreening> {
  const readings = virusRisk === "high" ? [] : await readAttachments(svc, message.id);
  const attachments = readings
    .filter((reading) => reading.injection)
    .map((reading) => ({
      attachment_id: reading.id,
      filename: reading.filename,
      score: reading.injection!.score,
      risky: reading.injection!.risky,
      signals: reading.injection!.signals,
    }));
  const injection = scoreInjectionRisk({
    subject: message.subject,
    bodyClean: message.body_clean ?? "",
    hiddenText: message.hidden_text ?? "",
    report: (message.sanitization ?? {}) as Record<string, number>,
  });
  const body = { score: injection.score, risky: injection.risky, threshold: injection.threshold, signals: injection.signals };
  return { body, attachments, readings };
}
