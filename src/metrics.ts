// Every metric the service exposes, by name, in one place (a base layer like log.ts). Code counts
// where the work happens; src/http/routes/metrics.ts serves the registry in Prometheus text format.
// Labels take values from small closed sets (task names, outcomes, reasons, route patterns),
// never ids or addresses, so a scrape stays small however much mail passes.
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export const registry = new Registry();

const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const smtpSessions = new Counter({
  name: "mailbox_smtp_sessions_total",
  help: "SMTP sessions closed by the inbound listener.",
  registers: [registry],
});

export const smtpMessages = new Counter({
  name: "mailbox_smtp_messages_total",
  help: "Inbound SMTP transactions and recipients by result (accepted, rejected) and reason.",
  labelNames: ["result", "reason"] as const,
  registers: [registry],
});

export const queueJobs = new Gauge({
  name: "mailbox_queue_jobs",
  help: "Graphile Worker jobs waiting or running, per task (read at scrape time).",
  labelNames: ["task"] as const,
  registers: [registry],
});

export const queueOldestJobAge = new Gauge({
  name: "mailbox_queue_oldest_job_age_seconds",
  help: "Age of the oldest job that is due and not yet done, per task (read at scrape time).",
  labelNames: ["task"] as const,
  registers: [registry],
});

export const queueFailedJobs = new Gauge({
  name: "mailbox_queue_failed_jobs",
  help: "Jobs that used all their attempts and stay in the queue as dead letters, per task.",
  labelNames: ["task"] as const,
  registers: [registry],
});

export const webhookDeadDeliveries = new Gauge({
  name: "mailbox_webhook_dead_deliveries",
  help: "Webhook deliveries that gave up (state dead), awaiting a redrive (read at scrape time).",
  registers: [registry],
});

export const jobDuration = new Histogram({
  name: "mailbox_job_duration_seconds",
  help: "Time one job run took, per task and outcome (success, failure).",
  labelNames: ["task", "outcome"] as const,
  buckets: seconds,
  registers: [registry],
});

export const jobQueueWait = new Histogram({
  name: "mailbox_job_queue_wait_seconds",
  help: "From a job becoming due (run_at) to a worker starting it, per task: time spent queued.",
  labelNames: ["task"] as const,
  buckets: seconds,
  registers: [registry],
});

export const jobFailures = new Counter({
  name: "mailbox_job_failures_total",
  help: "Job runs that threw (each is retried until its attempts run out), per task.",
  labelNames: ["task"] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: "mailbox_webhook_attempts_total",
  help: "Webhook delivery attempts by outcome (delivered, retry_scheduled, dead, skipped).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const webhookDeliveryDelay = new Histogram({
  name: "mailbox_webhook_delivery_delay_seconds",
  help: "From the webhook event's creation to the attempt that delivered it (includes retries).",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200],
  registers: [registry],
});

export const webhookResponseTime = new Histogram({
  name: "mailbox_webhook_response_seconds",
  help: "How long the receiving endpoint took to answer one attempt.",
  buckets: seconds,
  registers: [registry],
});

export const sends = new Counter({
  name: "mailbox_sends_total",
  help: "Outbound messages handed to the transport, by outcome (sent, transient, permanent, unknown).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const sendStageDuration = new Histogram({
  name: "mailbox_send_stage_seconds",
  help: "Time one outbound send spent in each stage (checks, compose, sign, record, deliver, outcome).",
  labelNames: ["stage"] as const,
  buckets: [0.0005, 0.001, 0.0025, ...seconds],
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: "mailbox_http_request_duration_seconds",
  help: "HTTP request duration by method, route pattern and status.",
  labelNames: ["method", "route", "status"] as const,
  buckets: seconds,
  registers: [registry],
});

export const dbPoolMax = new Gauge({
  name: "mailbox_db_pool_max_connections",
  help: "The most connections this process's query pool may open.",
  registers: [registry],
});

export const dbConnections = new Gauge({
  name: "mailbox_db_connections",
  help: "Server connections to this database by state (from pg_stat_activity, all copies together).",
  labelNames: ["state"] as const,
  registers: [registry],
});

export const retentionPurged = new Counter({
  name: "mailbox_retention_purged_messages_total",
  help: "Messages whose content the retention task removed, leaving a tombstone.",
  registers: [registry],
});
