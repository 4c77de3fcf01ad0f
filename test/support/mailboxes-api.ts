// The /api/v1/mailboxes calls the mailboxes.{happy,error,security} tests make, against the context
// their beforeAll sets up (read when a call is made, so it may be assigned after this runs).
import type { Fixture, TestContext } from "./context.ts";
import { domainWithStatus } from "./domain-status.ts";

export function mailboxesApi(context: () => TestContext) {
  return {
    create: (key: string, body?: unknown) => context().request("POST", "/api/v1/mailboxes", { key, body }),
    list: (key: string, query = "") => context().request("GET", `/api/v1/mailboxes${query}`, { key }),
    domainOf: (fixture: Fixture, name: string, status: "pending" | "verified" | "failed") =>
      domainWithStatus(context(), fixture, name, status),
  };
}
