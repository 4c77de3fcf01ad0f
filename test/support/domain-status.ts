// A custom domain of an account put in a given status directly, for tests of what a domain's
// status allows (domains.happy.test.ts covers verification through DNS).
import { expect } from "bun:test";
import type { Fixture, TestContext } from "./context.ts";

export async function domainWithStatus(
  ctx: TestContext,
  fixture: Fixture,
  name: string,
  status: "pending" | "verified" | "failed",
): Promise<string> {
  const created = await ctx.request("POST", "/api/v1/domains", { key: fixture.key, body: { name } });
  expect(created.status).toBe(200);
  await ctx.sql`update domains set status = ${status} where id = ${created.body.id}`;
  return created.body.id;
}
