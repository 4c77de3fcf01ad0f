// Pausing a mailbox (issue 31): a human pauses it in the dashboard or the CLI; its sends and draft
// submissions are then held for a human (202 pending_approval, no reviewer email), inbound mail
// keeps arriving, the agent sees `paused` in its mailbox list (API and MCP), and unpausing resumes.
// Also the review window set in the dashboard and the CLI, and who gets approval emails.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type DashboardClient, signUp } from "../support/dashboard-client.ts";
import { closedPort, deliverInbound, type Outbound, runCli, startOutbound } from "../support/outbound.ts";

setDefaultTimeout(60_000);

let world: Outbound;
let server: HttpServer;
let origin: string;
let human: DashboardClient;
let humanId: string;

beforeAll(async () => {
  const port = await closedPort();
  origin = `http://127.0.0.1:${port}`;
  world = await startOutbound({ HTTP_PORT: String(port), PUBLIC_BASE_URL: origin });
  server = startHttpServer(world.ctx.svc, world.ctx.app);
  ({ id: humanId, client: human } = await signUp(world.ctx, origin, world.owner.accountId, "pat@operators.example"));
});

afterAll(async () => {
  await server?.stop();
  await world?.close();
});

const listed = async () =>
  (await world.ctx.request("GET", "/api/v1/mailboxes", { key: world.owner.key })).body.mailboxes.find(
    (m: { id: string }) => m.id === world.mailbox.id,
  );
const jobs = async (task: string) =>
  (
    await world.ctx
      .sql`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = ${task}`
  )[0]!.n as number;

describe("pause from the dashboard", () => {
  test("a paused mailbox holds sends and draft submissions for a human; the agent sees paused; inbound keeps arriving", async () => {
    expect((await listed()).paused).toBe(false);
    const paused = await human.act("/dashboard/mailboxes", `/dashboard/mailboxes/${world.mailbox.id}/settings`, { paused: "on" });
    expect(paused.status).toBe(303);
    const page = await human.get("/dashboard/mailboxes");
    expect(page.text).toContain('<span class="state paused">paused</span>');
    expect(page.text).toContain("by pat@operators.example");
    expect((await listed()).paused).toBe(true);

    const mcp = new Client({ name: "pause-test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${world.owner.key}` } },
      }),
    );
    const viaMcp = (await mcp.callTool({ name: "list_mailboxes", arguments: {} })) as { structuredContent: any };
    expect(viaMcp.structuredContent.mailboxes.find((m: { id: string }) => m.id === world.mailbox.id).paused).toBe(true);
    await mcp.close();

    const notifyBefore = await jobs("notify_reviewers");
    const sent = await world.send({ mailbox_id: world.mailbox.id, to: "held@example.org", text: "Held while paused", client_id: "p-1" });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ draft_id: expect.any(String), status: "pending_approval" });
    const draft = await world.ctx.request("POST", "/api/v1/drafts", {
      key: world.owner.key,
      body: { mailbox_id: world.mailbox.id, to: "d@example.org", text: "Draft" },
    });
    const submitted = await world.ctx.request("POST", `/api/v1/drafts/${draft.body.id}/send`, { key: world.owner.key });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toEqual({ draft_id: draft.body.id, status: "pending_approval" });
    const reviews = await world.ctx
      .sql`select reason from draft_reviews where draft_id in ${world.ctx.sql([sent.body.draft_id, draft.body.id])}`;
    expect(reviews.map((r) => r.reason)).toEqual(["mailbox_paused", "mailbox_paused"]);
    // No reviewer email for holds of a paused mailbox: the human who paused it knows.
    expect(await jobs("notify_reviewers")).toBe(notifyBefore);
    expect(world.sink.messages).toEqual([]);
    // The queue says why they wait.
    expect((await human.get("/dashboard/approvals")).text).toContain("the mailbox is paused");

    const inbound = await deliverInbound(world.ctx, world.mailbox.id, { from: "customer@example.org", subject: "Still there?" });
    const messages = await world.ctx.request("GET", `/api/v1/messages?mailbox_id=${world.mailbox.id}`, { key: world.owner.key });
    expect(messages.body.messages.map((m: { id: string }) => m.id)).toContain(inbound);

    const resumed = await human.act("/dashboard/mailboxes", `/dashboard/mailboxes/${world.mailbox.id}/settings`, { paused: "off" });
    expect(resumed.status).toBe(303);
    expect((await listed()).paused).toBe(false);
    const after = await world.send({ mailbox_id: world.mailbox.id, to: "free@example.org", text: "Going out" });
    expect(after.status).toBe(201);
    expect(world.sink.messages.map((m) => m.to)).toEqual([["free@example.org"]]);
    // What was held meanwhile is still for a human to decide.
    expect((await world.ctx.sql`select status from drafts where id = ${sent.body.draft_id}`)[0]!.status).toBe("pending_approval");
    const trail = await world.ctx.sql`select action, details from dashboard_audit where action = 'mailbox.settings' order by id`;
    expect(trail.map((r) => r.details.paused)).toEqual([true, false]);
  });

  test("the review window is set in the dashboard; a bad value is refused with a message", async () => {
    const saved = await human.act("/dashboard/mailboxes", `/dashboard/mailboxes/${world.mailbox.id}/settings`, {
      review_window_hours: "24",
    });
    expect(saved.status).toBe(303);
    expect((await world.ctx.sql`select review_window_hours from mailboxes where id = ${world.mailbox.id}`)[0]!.review_window_hours).toBe(
      24,
    );
    for (const bad of ["0", "8761", "1.5", "abc"]) {
      const refused = await human.act("/dashboard/mailboxes", `/dashboard/mailboxes/${world.mailbox.id}/settings`, {
        review_window_hours: bad,
      });
      expect([bad, refused.status]).toEqual([bad, 400]);
      expect(refused.text).toContain("review window must be a whole number of hours from 1 to 8760");
    }
    expect((await world.ctx.sql`select review_window_hours from mailboxes where id = ${world.mailbox.id}`)[0]!.review_window_hours).toBe(
      24,
    );
  });

  test("who gets approval emails is set per person", async () => {
    const off = await human.act("/dashboard/people", `/dashboard/people/${humanId}/reviews`, { reviews: "off" });
    expect(off.status).toBe(303);
    expect((await world.ctx.sql`select reviews_drafts from dashboard_users where id = ${humanId}`)[0]!.reviews_drafts).toBe(false);
    await human.act("/dashboard/people", `/dashboard/people/${humanId}/reviews`, { reviews: "on" });
    expect((await world.ctx.sql`select reviews_drafts from dashboard_users where id = ${humanId}`)[0]!.reviews_drafts).toBe(true);
  });
});

describe("pause from the CLI", () => {
  test("mailbox set --paused on|off and --review-window-hours", async () => {
    const on = await runCli(world.ctx, [
      "mailbox",
      "set",
      world.mailbox.id,
      "--paused",
      "on",
      "--by",
      "oncall",
      "--review-window-hours",
      "6",
      "--json",
    ]);
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ id: world.mailbox.id, paused_by: "cli:oncall", review_window_hours: 6 });
    expect((await listed()).paused).toBe(true);
    const held = await world.send({ mailbox_id: world.mailbox.id, to: "cli-held@example.org", text: "Held" });
    expect(held.status).toBe(202);
    const off = await runCli(world.ctx, ["mailbox", "set", world.mailbox.id, "--paused", "off", "--json"]);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ paused_at: null, paused_by: null });
    expect((await listed()).paused).toBe(false);
    const bad = await runCli(world.ctx, ["mailbox", "set", world.mailbox.id, "--review-window-hours", "0"]);
    expect(bad.code).not.toBe(0);
  });
});
