// Graphile Worker 0.18 records a job's result (completeJob / failJob without batching) without
// awaiting it: when the database is unreachable for longer than its retries, that promise rejects
// with nobody to catch it, and an unhandled rejection ends the process. Seen in `npm run chaos
// db-restart`. While the worker runs, such a rejection that is a lost database connection is
// logged instead; the job it concerns stays locked by this live pool, and the sweeper hands it back
// (worker/liveness.ts, own orphans). Any other unhandled rejection still ends the process.

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08006",
]);
const CONNECTION_MESSAGES =
  /Connection terminated|connection.*(closed|ended)|database system is (shutting down|starting up|in recovery)|terminating connection/i;

export function isLostConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (typeof code === "string" && CONNECTION_CODES.has(code)) || CONNECTION_MESSAGES.test(error.message);
}

/** Installs the guard; the function it returns takes it off again. */
export function guardConnectionRejections(log: (error: Error) => void): () => void {
  const onRejection = (reason: unknown) => {
    if (isLostConnection(reason)) return log(reason as Error);
    // Not ours to swallow: end the process as an unhandled rejection would have.
    setImmediate(() => {
      throw reason;
    });
  };
  process.on("unhandledRejection", onRejection);
  return () => void process.off("unhandledRejection", onRejection);
}
