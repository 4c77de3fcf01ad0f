// Step 1, virus: clamd's verdict on the raw bytes. A scanner failure retries the job; after the
// last attempt the message goes on without a verdict.
import { scanWithClamd } from "../../comprehension/scanners/clamd.ts";
import type { Services } from "../services.ts";
import type { Attempt, VirusRisk } from "./types.ts";

export async function scanVirus(svc: Services, raw: Uint8Array, attempt: Attempt): Promise<VirusRisk> {
  const { config, log } = svc;
  if (!config.screening.clamdAddress) return null;
  try {
    return (await scanWithClamd(config.screening.clamdAddress, raw, config.screening.timeoutMs)).infected ? "high" : "low";
  } catch (error) {
    if (!attempt.lastChance) throw error; // the job is retried; after the last try the message goes on
    log.error("screening.clamd_failed", { message_id: attempt.messageId, error: String((error as Error).message) });
    return null;
  }
}
