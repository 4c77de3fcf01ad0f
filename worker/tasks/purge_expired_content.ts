// purge_expired_content: hourly (crontab in worker/runner.ts), empties messages past their
// retention in small batches (see src/core/retention.ts). Without RETENTION_DAYS and without any
// account setting it finds nothing to do.
import { deleteQueuedBlobs } from "../../src/core/content.ts";
import { purgeExpiredContent } from "../../src/core/retention.ts";
import type { Services } from "../../src/core/services.ts";
import { retentionPurged } from "../../src/metrics.ts";

export async function purgeExpiredContentTask(svc: Services): Promise<void> {
  const purged = await purgeExpiredContent(svc.sql, svc.config.retentionDays);
  retentionPurged.inc(purged);
  if (purged > 0) svc.log.info("retention.purged", { messages: purged, default_days: svc.config.retentionDays });
  // The objects of what was purged (and of anything queued before, should a delete have failed).
  for (let deleted = 1; deleted > 0; ) deleted = await deleteQueuedBlobs(svc);
}
