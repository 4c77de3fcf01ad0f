// What core functions need from the outside, built once per process in src/main.ts (or per test).
import type { Config } from "../config.ts";
import type { Sql } from "../db.ts";
import type { Logger } from "../log.ts";
import type { ResolveFn } from "../mail/resolver.ts";
import type { DeliveryTransport } from "../delivery/transport.ts";

export type { ResolveFn };


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
};

/** Builds the services; the transport is made last because the local one delivers through them. */
export function makeServices(base: Omit<Services, "transport">, makeTransport: (svc: Omit<Services, "transport">) => DeliveryTransport): Services {
  const svc = base as Services;
  svc.transport = makeTransport(base);
  return svc;
}
