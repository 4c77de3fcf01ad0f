// The inbound path as the smtp and worker roles run it, over one test context: mail sent to
// `smtp.port` is stored, and the worker runs its jobs (webhook deliveries among them).
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { startWorker, type WorkerHandle } from "../../worker/runner.ts";
import { makeTestContext, type TestContext } from "./context.ts";
import { reusableDataDir } from "./smtp-client.ts";

export type Stack = { ctx: TestContext; smtp: SmtpListener; worker: WorkerHandle };

export async function startStack(env: Record<string, string>): Promise<Stack> {
  const ctx = await makeTestContext({ DATA_DIR: reusableDataDir, ...env });
  const smtp = await startSmtpListener(ctx.svc, { port: 0, host: "127.0.0.1" });
  const worker = await startWorker(ctx.svc, ctx.config.databaseUrl!);
  return { ctx, smtp, worker };
}

/** Stops in reverse order of start; a stack whose start failed is `undefined` and skipped. */
export async function stopStack(stack: Stack | undefined): Promise<void> {
  if (!stack) return;
  await stack.worker.stop();
  await stack.smtp.close();
  await stack.ctx.close();
}
