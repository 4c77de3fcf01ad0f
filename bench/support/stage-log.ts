// Where an inbound message's time goes, per stage, read from the service's own JSON log (stdout):
// the listener's inbound.accepted line (parse, sanitize, the accept transaction), each job's
// queue wait and duration (job.succeeded), screening's inbound.processed line (load, clamd, spam
// scanner, auth, delivery reports, classifier, injection, comprehension, record) and the webhook
// attempt's line (claim, endpoint, resolve, sign, post, record), made inside process_inbound
// right after the verdict commits or, for retries and fallbacks, by a deliver_webhook job. Keyed by message id, so a
// benchmark can summarise the messages of one phase. Times are the service's wall clock.

export type MessageStages = Record<string, number>;

type Line = {
  event?: string;
  task?: string;
  message_id?: string;
  message_ids?: string[];
  delivery_id?: string;
  duration_ms?: number | null;
  queue_wait_ms?: number | null;
  stages_ms?: Record<string, number>;
};

/** Rows of the table in pipeline order: [key, label]. A key absent from every message is left out. */
export const STAGE_ROWS: [string, string][] = [
  ["accept.parse", "parse (before 250)"],
  ["accept.sanitize", "sanitize (before 250)"],
  ["accept.store", "accept transaction (before 250)"],
  ["inbound.queue_wait", "process_inbound queue wait"],
  ["screen.load", "load message row"],
  ["screen.scanners", "scanners (side by side)"],
  ["screen.clamd", "clamd"],
  ["screen.spamd", "spamd"],
  ["screen.rspamd", "rspamd"],
  ["screen.auth", "sender auth (SPF/DKIM/DMARC)"],
  ["screen.reports", "delivery reports"],
  ["screen.classifier", "spam classifier (ours)"],
  ["screen.injection", "injection detector"],
  ["screen.comprehension", "comprehension"],
  ["screen.record", "record + event (DB)"],
  ["screen.webhook", "webhook attempt (in the job)"],
  ["inbound.job", "process_inbound job, total"],
  ["webhook.queue_wait", "deliver_webhook queue wait"],
  ["webhook.claim", "webhook lease (DB)"],
  ["webhook.endpoint", "webhook endpoint (DB)"],
  ["webhook.resolve", "webhook target resolve"],
  ["webhook.sign", "webhook signing"],
  ["webhook.post", "webhook POST"],
  ["webhook.record", "webhook attempt record (DB)"],
  ["webhook.job", "deliver_webhook job, total"],
];

export class StageLog {
  private readonly byMessage = new Map<string, MessageStages>();
  private readonly messageOfDelivery = new Map<string, string>();
  private readonly pendingDeliveryJobs = new Map<string, Line>();

  /** Reads the child's stdout to its end, line by line. */
  async consume(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of stream) {
      rest += decoder.decode(chunk, { stream: true });
      let newline = rest.indexOf("\n");
      while (newline >= 0) {
        this.line(rest.slice(0, newline));
        rest = rest.slice(newline + 1);
        newline = rest.indexOf("\n");
      }
    }
  }

  private stages(messageId: string): MessageStages {
    let stages = this.byMessage.get(messageId);
    if (!stages) this.byMessage.set(messageId, (stages = {}));
    return stages;
  }

  private put(messageId: string, prefix: string, stages: Record<string, number> | undefined): void {
    const into = this.stages(messageId);
    for (const [name, ms] of Object.entries(stages ?? {})) into[`${prefix}.${name}`] = ms;
  }

  private job(messageId: string, prefix: string, line: Line): void {
    const into = this.stages(messageId);
    if (typeof line.duration_ms === "number") into[`${prefix}.job`] = line.duration_ms;
    if (typeof line.queue_wait_ms === "number") into[`${prefix}.queue_wait`] = line.queue_wait_ms;
  }

  line(text: string): void {
    if (!text.startsWith("{")) return;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      return;
    }
    switch (line.event) {
      case "inbound.accepted":
        for (const id of line.message_ids ?? []) this.put(id, "accept", line.stages_ms);
        break;
      case "inbound.processed":
        if (line.message_id) this.put(line.message_id, "screen", line.stages_ms);
        break;
      case "webhook.attempt":
        // The first attempt only: a retry is not part of a message's first delivery.
        if (line.message_id && line.delivery_id && !this.messageOfDelivery.has(line.delivery_id)) {
          this.messageOfDelivery.set(line.delivery_id, line.message_id);
          this.put(line.message_id, "webhook", line.stages_ms);
          const job = this.pendingDeliveryJobs.get(line.delivery_id);
          if (job) this.job(line.message_id, "webhook", job);
        }
        break;
      case "job.succeeded":
        if (line.task === "process_inbound" && line.message_id && !this.stages(line.message_id)["inbound.job"]) {
          this.job(line.message_id, "inbound", line);
        } else if (line.task === "deliver_webhook" && line.delivery_id) {
          // The job's line follows the attempt's, which names the message.
          const messageId = this.messageOfDelivery.get(line.delivery_id);
          if (messageId && this.stages(messageId)["webhook.job"] === undefined) this.job(messageId, "webhook", line);
          else if (!messageId) this.pendingDeliveryJobs.set(line.delivery_id, line);
        }
        break;
    }
  }

  /** Each stage's times over the given messages (only the messages that logged that stage). */
  over(messageIds: string[]): Map<string, number[]> {
    const out = new Map<string, number[]>();
    for (const id of messageIds) {
      for (const [stage, ms] of Object.entries(this.byMessage.get(id) ?? {})) {
        let list = out.get(stage);
        if (!list) out.set(stage, (list = []));
        list.push(ms);
      }
    }
    return out;
  }
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(0.99 * values.length) - 1)]!;

/** The per-stage table: a row per stage, "mean / p99 ms" per rate. */
export function stageTable(columns: { rate: number; stages: Map<string, number[]> }[]): string[] {
  const width = 15;
  const labelWidth = 34;
  const format = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
  const rows = STAGE_ROWS.filter(([key]) => columns.some((column) => (column.stages.get(key)?.length ?? 0) > 0));
  return [
    `${"stage (mean / p99 ms)".padEnd(labelWidth)}${columns.map((c) => `${c.rate}/s`.padStart(width)).join("")}`,
    ...rows.map(
      ([key, label]) =>
        label.padEnd(labelWidth) +
        columns
          .map((column) => {
            const values = column.stages.get(key);
            return (values?.length ? `${format(mean(values))} / ${format(p99(values))}` : "—").padStart(width);
          })
          .join(""),
    ),
  ];
}
