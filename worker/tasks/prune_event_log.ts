// Hourly (crontab in worker/runner.ts): drops events older than EVENT_RETENTION_DAYS from the log.
import { pruneEventLog } from "../../src/core/events/index.ts";
import type { Services } from "../../src/core/services.ts";

export async function pruneEventLogTask(svc: Services): Promise<void> {
  const deleted = await pruneEventLog(svc.sql, svc.config.events.retentionDays);
  svc.log.info("events.pruned", { deleted, retention_days: svc.config.events.retentionDays });
}
