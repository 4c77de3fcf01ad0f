// What core functions need from the outside, built once per process in src/main.ts (or per test).
import type { Config } from "../config.ts";
import type { Sql } from "../db.ts";
import type { Logger } from "../log.ts";
import type { ResolveFn } from "../mail/resolver.ts";
import { listenThrough } from "./accounts/index.ts";
import { type BlobStore, makeBlobStore } from "./blob-store.ts";
import type { WakeSource } from "./event-wake.ts";
import type { DeliveryTransport } from "./transport.ts";

export type Services = {
  sql: Sql;
  /**
   * For LISTEN: a pool on DATABASE_DIRECT_URL when the main pool goes through a transaction-pooling
   * PgBouncer (a notification needs the session that listened). Absent: listen on `sql`.
   */
  listenSql?: Sql;
  config: Config;
  log: Logger;
  resolve: ResolveFn;
  transport: DeliveryTransport;
  /** The object store for message content (BLOB_STORE_URL), or null: content stays in PostgreSQL. */
  blobs: BlobStore | null;
  /**
   * The process's event hub (LISTEN/NOTIFY), for surfaces that wait on new events without owning
   * it (the MCP tool wait_for_message): set by the HTTP app (src/http/app.ts), which owns the hub.
   */
  eventWake?: WakeSource;
};

/**
 * Builds the services. The transport comes from the caller (src/main.ts passes
 * delivery/index.ts's makeTransport), so core never imports delivery. It is handed the
 * services it will live in, because the local transport delivers through them; it only
 * delivers after this returns, when `transport` is the real one.
 */
export function makeServices(base: Omit<Services, "transport" | "blobs">, makeTransport: (svc: Services) => DeliveryTransport): Services {
  const blobs = base.config.blobStore ? makeBlobStore(base.config.blobStore) : null;
  const svc: Services = Object.assign(base, { transport: NOT_YET_MADE, blobs });
  if (base.listenSql) listenThrough(base.sql, base.listenSql);
  svc.transport = makeTransport(svc);
  return svc;
}

const NOT_YET_MADE: DeliveryTransport = {
  name: "unset",
  deliver: () => Promise.reject(new Error("the transport was used while it was being made")),
};
