// Starts the roles named in ROLES (api, smtp, worker) in this process, against DATABASE_URL or,
// without one, an embedded PostgreSQL under DATA_DIR. SIGTERM/SIGINT drain and stop cleanly.

import { startSmtpListener } from "../smtp/listener.ts";
import { startWorker } from "../worker/runner.ts";
import { type Config, loadConfigOrReport } from "./config.ts";
import { createDefaultAccountOnFirstStart, type FirstStartSecrets, stopKeyCache } from "./core/accounts/index.ts";
import { drainEventHub } from "./core/events/index.ts";
import { makeServices } from "./core/services.ts";
import { type EmbeddedDatabase, makeSql, migrate, startEmbeddedPostgres } from "./db.ts";
import { makeTransport } from "./delivery/index.ts";
import { watchEventLoopStalls } from "./event-loop-stalls.ts";
import { makeApp } from "./http/app.ts";
import { makeMetricsApp } from "./http/metrics-app.ts";
import { startHttpServer } from "./http/server.ts";
import { errorFields, makeLogger } from "./log.ts";
import { makeResolver } from "./mail/resolver.ts";

type Stoppable = { name: string; stop(): Promise<void> };

async function main(): Promise<void> {
  const config = loadConfigOrReport();
  if (!config) process.exit(1);
  const log = makeLogger(config.logLevel);
  if (config.eventLoopStallLogMs > 0) watchEventLoopStalls(log, config.eventLoopStallLogMs);
  const stopping: Stoppable[] = [];

  let embedded: EmbeddedDatabase | null = null;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    log.info("database.embedded_starting", { data_dir: config.dataDir, port: config.embeddedPostgresPort });
    embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort, (message) =>
      log.info("database.embedded", { message }),
    );
    databaseUrl = embedded.url;
  }
  // Session work (migrations' locks, the worker's LISTEN and liveness lock, event LISTEN) goes
  // direct; queries and transactions may go through a transaction-pooling PgBouncer.
  const directUrl = config.databaseDirectUrl ?? databaseUrl;
  await migrate(directUrl, (message) => log.info("database.migration", { message }));

  const sql = makeSql(databaseUrl, { prepare: config.databasePoolMode !== "transaction" });
  const listenSql = directUrl === databaseUrl ? undefined : makeSql(directUrl, { max: 2 });
  const svc = makeServices(
    { sql, listenSql, config, log, resolve: makeResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }) },
    makeTransport,
  );
  const secrets = await createDefaultAccountOnFirstStart(sql, config.sharedDomain);
  if (secrets) printFirstStartSecrets(secrets, config);

  if (config.roles.includes("worker")) {
    const worker = await startWorker(svc, directUrl);
    stopping.push({ name: "worker", stop: worker.stop });
  }
  if (config.roles.includes("smtp")) {
    const smtp = await startSmtpListener(svc);
    stopping.push({ name: "smtp", stop: smtp.close });
  }
  if (config.roles.includes("api")) {
    const http = startHttpServer(svc, makeApp(svc));
    log.info("http.listening", { host: config.host, port: http.port, public_base_url: config.publicBaseUrl });
    stopping.push({ name: "http", stop: http.stop });
    // Stopped before HTTP (the list runs in reverse): open streams never finish by themselves.
    stopping.push({ name: "event streams", stop: () => drainEventHub(svc) });
  }
  if (!config.roles.includes("api") && config.metricsPort !== null) {
    const metrics = startHttpServer(svc, makeMetricsApp(svc), config.metricsPort);
    log.info("metrics.listening", { host: config.host, port: metrics.port });
    stopping.push({ name: "metrics", stop: metrics.stop });
  }
  log.info("service.started", { roles: config.roles });

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info("service.stopping", { signal });
    // Stop taking work first (HTTP, SMTP), then let the worker finish its jobs, then the pool.
    for (const part of [...stopping].reverse()) {
      try {
        await part.stop();
        log.info("service.stopped_part", { part: part.name });
      } catch (error) {
        log.error("service.stop_failed", { part: part.name, ...errorFields(error) });
      }
    }
    await stopKeyCache(sql);
    await sql.end({ timeout: 5 });
    await listenSql?.end({ timeout: 5 });
    if (embedded) await embedded.stop();
    log.info("service.stopped", {});
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

function printFirstStartSecrets(secrets: FirstStartSecrets, config: Config): void {
  const lines = [
    "",
    "First start: a default account was created. These secrets are shown once; store them now.",
    `  account id:       ${secrets.accountId}`,
    `  api key:          ${secrets.apiKey}`,
    `  bootstrap key:    ${secrets.bootstrapKey}`,
    `  dashboard login:  ${secrets.dashboardEmail} / ${secrets.dashboardPassword}`,
    `  API:              ${config.publicBaseUrl}/api/v1/  (reference: ${config.publicBaseUrl}/docs)`,
    `  dashboard:        ${config.publicBaseUrl}/dashboard`,
    `  MCP:              ${config.publicBaseUrl}/mcp`,
    "",
  ];
  console.log(lines.join("\n"));
}

main().catch((error) => {
  console.error(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
