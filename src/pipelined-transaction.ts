// A transaction whose statements do not wait for each other's replies, sent in one round trip:
// BEGIN, the statements and COMMIT go out together on one reserved connection, and the outcome is
// known once every reply is in. sql.begin() waits for BEGIN's reply before the first statement
// and for the statements' replies before COMMIT; on a busy machine each round trip is a wake-up of
// the backend and of this process, per transaction.
//
// A statement that fails aborts the transaction as it would under sql.begin(): PostgreSQL answers
// the statements after it with "current transaction is aborted" and the COMMIT with ROLLBACK, and
// this throws the first real error. It resolves only when every statement succeeded and the server
// answered COMMIT (the command tag is checked, not assumed).
import type { Sql, Tx } from "./db.ts";

const IN_FAILED_TRANSACTION = "25P02";

/**
 * Runs the statements `build` creates in one transaction, pipelined. `build` must create every
 * statement synchronously and in order on the connection it is given (a postgres.js statement is
 * sent when it is awaited, `.then`ed or `.execute()`d, so `build` should start each one); the
 * caller reads results from the promises it kept, after this resolves.
 */
export async function pipelinedTransaction(sql: Sql, build: (db: Tx) => PromiseLike<unknown>[]): Promise<void> {
  const connection = await sql.reserve();
  // A reserved connection takes the same templates as a transaction's; only BEGIN/COMMIT are ours.
  const db = connection as unknown as Tx;
  const begin = connection`begin`.execute();
  let statements: PromiseLike<unknown>[];
  try {
    statements = build(db);
  } catch (error) {
    await Promise.allSettled([begin, connection`rollback`.execute()]);
    connection.release();
    throw error;
  }
  const commit = connection`commit`.execute();
  const outcomes = await Promise.allSettled([begin, ...statements, commit]);
  connection.release();
  const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (failures.length > 0) {
    const first = failures.find((failure) => (failure.reason as { code?: string } | null)?.code !== IN_FAILED_TRANSACTION);
    throw (first ?? failures[0]!).reason;
  }
  const { command } = (await commit) as unknown as { command?: string };
  if (command !== "COMMIT") throw new Error(`the transaction ended with ${command ?? "no reply"}, not COMMIT`);
}
