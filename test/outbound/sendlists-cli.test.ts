// The operator CLI for send lists and suppressions, run as a subprocess against the test database,
// and the effect of each command on the next send.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { makeAccount, makeMailbox } from "../support/context.ts";
import { type Outbound, runCli, startOutbound } from "../support/outbound.ts";

// Subprocesses, the worker and a loaded CI machine need more than the default 5 s.
setDefaultTimeout(30_000);

let o: Outbound;

beforeAll(async () => {
  o = await startOutbound();
});

afterAll(async () => {
  await o.close();
});

const sendTo = (to: string, mailboxId = o.mailbox.id) => o.send({ mailbox_id: mailboxId, to, text: "hi" });

async function cliJson(args: string[]) {
  const result = await runCli(o.ctx, [...args, "--json"]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe("sendlist", () => {
  test("add a block entry: sends to it are 403 with its id; list shows it; remove lets them through", async () => {
    const entry = await cliJson(["sendlist", "add", "--account", o.owner.accountId, "--kind", "block", "--pattern", "@Blocked.Example"]);
    expect(entry).toMatchObject({ account_id: o.owner.accountId, mailbox_id: null, kind: "block", pattern: "blocked.example" });
    expect(entry.id).toMatch(/^sle_/);

    const blocked = await sendTo("someone@blocked.example");
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ code: "send_blocked_by_list", reason: "block_match", scope: "account", list_entry_id: entry.id });

    const listed = await cliJson(["sendlist", "list", "--account", o.owner.accountId]);
    expect(listed.map((e: { id: string }) => e.id)).toContain(entry.id);

    expect(await cliJson(["sendlist", "remove", entry.id])).toEqual({ removed: true });
    expect(await cliJson(["sendlist", "remove", entry.id])).toEqual({ removed: false });
    expect((await sendTo("someone@blocked.example")).status).toBe(201);
    expect((await cliJson(["sendlist", "list", "--account", o.owner.accountId])).map((e: { id: string }) => e.id)).not.toContain(entry.id);
  });

  test("a mailbox-scope allow entry restricts that mailbox only", async () => {
    const other = await makeMailbox(o.ctx, o.owner, "cli-other");
    const entry = await cliJson([
      "sendlist",
      "add",
      "--account",
      o.owner.accountId,
      "--mailbox",
      o.mailbox.id,
      "--kind",
      "allow",
      "--pattern",
      "friend@partner.example",
    ]);
    expect(entry).toMatchObject({ mailbox_id: o.mailbox.id, kind: "allow", pattern: "friend@partner.example" });
    const refused = await sendTo("stranger@partner.example");
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: "send_blocked_by_list", reason: "no_allow_match", scope: "mailbox" });
    expect((await sendTo("friend@partner.example")).status).toBe(201);
    expect((await sendTo("stranger@partner.example", other.id)).status).toBe(201);
    await cliJson(["sendlist", "remove", entry.id]);
    expect((await sendTo("stranger@partner.example")).status).toBe(201);
  });

  test("bad input is refused: unknown kind (usage), bad pattern, foreign mailbox", async () => {
    const kind = await runCli(o.ctx, ["sendlist", "add", "--account", o.owner.accountId, "--kind", "deny", "--pattern", "x.example"]);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain("--kind must be one of allow, block");
    const pattern = await runCli(o.ctx, [
      "sendlist",
      "add",
      "--account",
      o.owner.accountId,
      "--kind",
      "block",
      "--pattern",
      "not a pattern",
    ]);
    expect(pattern.code).toBe(1);
    expect(pattern.stderr).toContain("pattern must be an email address or a domain name");
    const stranger = await makeAccount(o.ctx);
    const foreign = await makeMailbox(o.ctx, stranger, "cli-foreign");
    const wrong = await runCli(o.ctx, [
      "sendlist",
      "add",
      "--account",
      o.owner.accountId,
      "--mailbox",
      foreign.id,
      "--kind",
      "block",
      "--pattern",
      "x.example",
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("not found");
    expect(await cliJson(["sendlist", "list", "--account", o.owner.accountId])).toEqual([]);
  });
});

describe("suppression", () => {
  test("add, list and remove, with the send answering 422 in between", async () => {
    const row = await cliJson([
      "suppression",
      "add",
      "--account",
      o.owner.accountId,
      "--address",
      "Bouncy@Example.org",
      "--reason",
      "bounce",
    ]);
    expect(row).toMatchObject({ account_id: o.owner.accountId, address: "bouncy@example.org", reason: "bounce" });
    const refused = await sendTo("bouncy@example.org");
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: "recipient is suppressed (bounce, complaint or unsubscribe)" });

    const listed = await cliJson(["suppression", "list", "--account", o.owner.accountId]);
    expect(listed.map((s: { id: string }) => s.id)).toEqual([row.id]);

    expect(await cliJson(["suppression", "remove", row.id])).toEqual({ removed: true });
    expect((await sendTo("bouncy@example.org")).status).toBe(201);
    expect(await cliJson(["suppression", "list", "--account", o.owner.accountId])).toEqual([]);
  });

  test("the default reason is manual, and it suppresses too", async () => {
    const row = await cliJson(["suppression", "add", "--account", o.owner.accountId, "--address", "quiet@example.org"]);
    expect(row.reason).toBe("manual");
    expect((await sendTo("quiet@example.org")).status).toBe(422);
  });

  test("an unknown reason is a usage error and adds nothing", async () => {
    const result = await runCli(o.ctx, [
      "suppression",
      "add",
      "--account",
      o.owner.accountId,
      "--address",
      "x@example.org",
      "--reason",
      "annoyed",
    ]);
    expect(result.code).toBe(2);
    expect((await sendTo("x@example.org")).status).toBe(201);
  });
});
