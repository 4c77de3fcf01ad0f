// The operator CLI (`npm run cli -- <resource> <action> ...`): the operator's control plane beside
// the dashboard, calling the same core functions it does. `--json` prints machine output.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadConfigOrReport } from "./config.ts";
import { createAccount, createKey, createUser, listKeys, type Plan, revokeKey, updateAccount } from "./core/accounts/index.ts";
import { moveBodies } from "./core/body-objects.ts";
import { moveContent } from "./core/content.ts";
import { sharedDomainKey } from "./core/domains/index.ts";
import { CoreError, errors } from "./core/errors.ts";
import { updateMailboxSettings } from "./core/mailboxes.ts";
import {
  addSendListEntry,
  addSuppression,
  approveDraft,
  listOutbox,
  listPendingDrafts,
  listSendListEntries,
  listSuppressions,
  rejectDraft,
  removeSendListEntry,
  removeSuppression,
  showOutboxMessage,
} from "./core/outbound/index.ts";
import type { Scope } from "./core/principal.ts";
import { setAccountRetention } from "./core/retention.ts";
import { createExtractionSchema } from "./core/schemas.ts";
import { makeServices, type Services } from "./core/services.ts";
import { disableWebhook, listAttempts, listDeliveries, redriveDelivery, setWebhook, showWebhook } from "./core/webhooks/index.ts";
import { makeSql, migrate, type Sql, startEmbeddedPostgres } from "./db.ts";
import { makeTransport } from "./delivery/index.ts";
import { makeLogger } from "./log.ts";
import { makeResolver } from "./mail/resolver.ts";
import { errorText } from "./request/error-answers.ts";
import { answerOfOutcome } from "./request/send-answers.ts";

class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;
type Command = {
  usage: string;
  options: Record<string, { type: "string" | "boolean" }>;
  /**
   * Validates its arguments first (a UsageError touches no database), then asks for the database
   * through `db()`, or for the full services (transport included) through `services()`.
   */
  run(db: () => Promise<Sql>, flags: Flags, positionals: string[], services: () => Promise<Services>): Promise<unknown>;
};

const str = (flags: Flags, name: string): string | undefined => (typeof flags[name] === "string" ? (flags[name] as string) : undefined);
function required(flags: Flags, name: string): string {
  const value = str(flags, name);
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}
function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(", ")}`);
  return value as T;
}
function onOff(value: string | undefined, name: string): boolean | undefined {
  const choice = oneOf(value, ["on", "off"] as const, name);
  return choice === undefined ? undefined : choice === "on";
}
function count(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}
/**
 * The operator names a row by id alone; the core functions act within an account, so the CLI
 * first resolves the account that owns the row (null when there is no such row).
 */
async function ownerOf(
  db: Sql,
  table: "api_keys" | "mailboxes" | "send_list_entries" | "suppressions" | "webhook_deliveries",
  id: string,
): Promise<string | null> {
  const [row] = await db<{ account_id: string }[]>`select account_id from ${db(table)} where id = ${id}`;
  return row?.account_id ?? null;
}

function positional(positionals: string[], name: string): string {
  const value = positionals[0];
  if (!value) throw new UsageError(`${name} is required`);
  return value;
}

const commands: Record<string, Command> = {
  "account create": {
    usage: "account create --name N [--plan free|paid] [--monthly-quota N]",
    options: { name: { type: "string" }, plan: { type: "string" }, "monthly-quota": { type: "string" } },
    run: async (db, f) => {
      const input = {
        name: required(f, "name"),
        plan: oneOf<Plan>(str(f, "plan"), ["free", "paid"], "plan"),
        monthlySendQuota: count(str(f, "monthly-quota"), "monthly-quota"),
      };
      return createAccount(await db(), input);
    },
  },
  "account update": {
    usage: "account update ID [--name N] [--plan free|paid] [--monthly-quota N|default]",
    options: { name: { type: "string" }, plan: { type: "string" }, "monthly-quota": { type: "string" } },
    run: async (db, f, p) => {
      const quota = str(f, "monthly-quota");
      const id = positional(p, "account ID");
      const changes = {
        name: str(f, "name"),
        plan: oneOf<Plan>(str(f, "plan"), ["free", "paid"], "plan"),
        monthlySendQuota: quota === "default" ? null : count(quota, "monthly-quota"),
      };
      return updateAccount(await db(), id, changes);
    },
  },
  "key create": {
    usage: "key create --account ID --scope bootstrap|api|mcp [--mailbox ID] [--no-read] [--no-send] [--name N]",
    options: {
      account: { type: "string" },
      scope: { type: "string" },
      mailbox: { type: "string" },
      "no-read": { type: "boolean" },
      "no-send": { type: "boolean" },
      name: { type: "string" },
    },
    run: async (db, f) => {
      const scope = oneOf<Scope>(str(f, "scope"), ["bootstrap", "api", "mcp"], "scope");
      if (!scope) throw new UsageError("--scope is required");
      const input = {
        accountId: required(f, "account"),
        scope,
        mailboxId: str(f, "mailbox") ?? null,
        canRead: !f["no-read"],
        canSend: !f["no-send"],
        name: str(f, "name") ?? null,
      };
      const { key, secret } = await createKey(await db(), input);
      return { ...key, secret, note: "the secret is shown once; store it now" };
    },
  },
  "key revoke": {
    usage: "key revoke ID",
    options: {},
    run: async (db, _f, p) => {
      const id = positional(p, "key ID");
      const sql = await db();
      const account = await ownerOf(sql, "api_keys", id);
      return { revoked: account !== null && (await revokeKey(sql, { accountId: account }, id)) === true };
    },
  },
  "key list": {
    usage: "key list --account ID",
    options: { account: { type: "string" } },
    run: async (db, f) => {
      const account = required(f, "account");
      return listKeys(await db(), { accountId: account });
    },
  },
  "account retention": {
    usage: "account retention ID --days N|default",
    options: { days: { type: "string" } },
    run: async (db, f, p) => {
      const id = positional(p, "account ID");
      const days = required(f, "days");
      const value = days === "default" ? null : count(days, "days")!;
      if (value !== null && (value < 1 || value > 36500)) throw new UsageError("--days must be between 1 and 36500");
      const updated = await setAccountRetention(await db(), { accountId: id }, value);
      if (!updated) throw new UsageError(`no account ${id}`);
      return updated;
    },
  },
  "mailbox set": {
    usage: "mailbox set ID [--require-approval on|off] [--deliver-spam on|off] [--paused on|off] [--review-window-hours N] [--by NAME]",
    options: {
      "require-approval": { type: "string" },
      "deliver-spam": { type: "string" },
      paused: { type: "string" },
      "review-window-hours": { type: "string" },
      by: { type: "string" },
    },
    run: async (db, f, p) => {
      const id = positional(p, "mailbox ID");
      const paused = onOff(str(f, "paused"), "paused");
      const hours = str(f, "review-window-hours");
      const settings = {
        requireApproval: onOff(str(f, "require-approval"), "require-approval"),
        deliverSpam: onOff(str(f, "deliver-spam"), "deliver-spam"),
        paused: paused === undefined ? undefined : paused ? { by: `cli:${str(f, "by") ?? "operator"}` } : (false as const),
        reviewWindowHours: hours === undefined ? undefined : count(hours, "review-window-hours")!,
      };
      const sql = await db();
      const account = await ownerOf(sql, "mailboxes", id);
      if (account === null) throw errors.notFound("mailbox");
      return updateMailboxSettings(sql, { accountId: account }, id, settings);
    },
  },
  "schema create": {
    usage: "schema create --account ID --file F [--name N]",
    options: { account: { type: "string" }, file: { type: "string" }, name: { type: "string" } },
    run: async (db, f) => {
      const file = required(f, "file");
      const accountId = required(f, "account");
      let schema: unknown;
      try {
        schema = JSON.parse(readFileSync(file, "utf8"));
      } catch (error) {
        throw new UsageError(`--file ${file} is not a readable JSON file (${(error as Error).message})`);
      }
      return createExtractionSchema(await db(), { accountId, name: str(f, "name") ?? file.replace(/^.*\//, ""), schema });
    },
  },
  "user create": {
    usage: "user create --account ID --email E --password P",
    options: { account: { type: "string" }, email: { type: "string" }, password: { type: "string" } },
    run: async (db, f) => {
      const input = { accountId: required(f, "account"), email: required(f, "email"), password: required(f, "password") };
      return createUser(await db(), input);
    },
  },
  "sendlist add": {
    usage: "sendlist add --account ID [--mailbox ID] --kind allow|block --pattern P",
    options: { account: { type: "string" }, mailbox: { type: "string" }, kind: { type: "string" }, pattern: { type: "string" } },
    run: async (db, f) => {
      const kind = oneOf(str(f, "kind"), ["allow", "block"] as const, "kind");
      if (!kind) throw new UsageError("--kind is required");
      const input = { accountId: required(f, "account"), mailboxId: str(f, "mailbox") ?? null, kind, pattern: required(f, "pattern") };
      return addSendListEntry(await db(), input);
    },
  },
  "sendlist remove": {
    usage: "sendlist remove ID",
    options: {},
    run: async (db, _f, p) => {
      const id = positional(p, "entry ID");
      const sql = await db();
      const account = await ownerOf(sql, "send_list_entries", id);
      return { removed: account !== null && (await removeSendListEntry(sql, { accountId: account }, id)) };
    },
  },
  "sendlist list": {
    usage: "sendlist list --account ID",
    options: { account: { type: "string" } },
    run: async (db, f) => {
      const account = required(f, "account");
      return listSendListEntries(await db(), { accountId: account });
    },
  },
  "draft pending": {
    usage: "draft pending --account ID",
    options: { account: { type: "string" } },
    run: async (db, f) => {
      const account = required(f, "account");
      return listPendingDrafts(await db(), { accountId: account });
    },
  },
  "draft approve": {
    usage: "draft approve ID [--by NAME]",
    options: { by: { type: "string" } },
    run: async (_db, f, p, services) => {
      const id = positional(p, "draft ID");
      const { status, body } = answerOfOutcome(await approveDraft(await services(), { accountId: null, name: str(f, "by") ?? "cli" }, id));
      return { status, ...body };
    },
  },
  "draft reject": {
    usage: "draft reject ID [--by NAME]",
    options: { by: { type: "string" } },
    run: async (db, f, p) => {
      const id = positional(p, "draft ID");
      await rejectDraft(await db(), { accountId: null, name: str(f, "by") ?? "cli" }, id);
      return { rejected: true };
    },
  },
  "outbox list": {
    usage: "outbox list [--limit N]",
    options: { limit: { type: "string" } },
    run: async (db, f) => {
      const limit = count(str(f, "limit"), "limit") ?? 20;
      return listOutbox(await db(), limit);
    },
  },
  "outbox show": {
    usage: "outbox show ID",
    options: {},
    run: async (db, _f, p) => {
      const id = positional(p, "outbox ID");
      return showOutboxMessage(await db(), id);
    },
  },
  "content move": {
    usage: "content move --to store|database [--batch N] [--limit N]",
    options: { to: { type: "string" }, batch: { type: "string" }, limit: { type: "string" } },
    run: async (_db, f, _p, services) => {
      const to = oneOf(required(f, "to"), ["store", "database"] as const, "to")!;
      const batch = count(str(f, "batch"), "batch");
      const limit = count(str(f, "limit"), "limit");
      const svc = await services();
      const direction = to === "store" ? "to-store" : "to-database";
      const report = await moveContent(svc, direction, { batch, limit });
      const moved = report.raw_messages + report.attachments;
      const left = limit === undefined ? undefined : limit - moved;
      return { ...report, bodies: left === 0 ? 0 : await moveBodies(svc, direction, { batch, limit: left }) };
    },
  },
  "dkim show": {
    usage: "dkim show",
    options: {},
    run: async (_db, _f, _p, services) => {
      const { sql, config } = await services();
      const key = await sharedDomainKey(sql, config);
      return { name: `${key.selector}._domainkey.${config.sharedDomain}`, type: "TXT", value: `v=DKIM1; k=rsa; p=${key.publicKey}` };
    },
  },
  "webhook set": {
    usage: "webhook set --account ID --url U [--secret S] [--events message.sent,message.bounced,...]",
    options: { account: { type: "string" }, url: { type: "string" }, secret: { type: "string" }, events: { type: "string" } },
    run: async (_db, f, _p, services) => {
      const events = str(f, "events");
      const input = {
        accountId: required(f, "account"),
        url: required(f, "url"),
        secret: str(f, "secret") ?? null,
        // message.received is always delivered; --events adds the outbound and review types
        ...(events === undefined
          ? {}
          : {
              eventTypes: events
                .split(",")
                .map((type) => type.trim())
                .filter(Boolean),
            }),
      };
      const { endpoint, secret } = await setWebhook(await services(), input);
      return { ...endpoint, secret, note: str(f, "secret") ? "secret set as given" : "generated secret, shown once; store it now" };
    },
  },
  "webhook show": {
    usage: "webhook show --account ID",
    options: { account: { type: "string" } },
    run: async (db, f) => {
      const account = required(f, "account");
      return (await showWebhook(await db(), { accountId: account })) ?? { configured: false };
    },
  },
  "webhook disable": {
    usage: "webhook disable --account ID",
    options: { account: { type: "string" } },
    run: async (db, f) => {
      const account = required(f, "account");
      return { disabled: await disableWebhook(await db(), { accountId: account }) };
    },
  },
  "webhook deliveries": {
    usage: "webhook deliveries --account ID [--dead] [--limit N]",
    options: { account: { type: "string" }, dead: { type: "boolean" }, limit: { type: "string" } },
    run: async (db, f) => {
      const account = required(f, "account");
      const options = { deadOnly: f.dead === true, limit: count(str(f, "limit"), "limit") };
      return listDeliveries(await db(), { accountId: account }, options);
    },
  },
  "webhook attempts": {
    usage: "webhook attempts DELIVERY_ID",
    options: {},
    run: async (db, _f, p) => {
      const id = positional(p, "delivery ID");
      const sql = await db();
      const account = await ownerOf(sql, "webhook_deliveries", id);
      return account === null ? [] : listAttempts(sql, { accountId: account }, id);
    },
  },
  "webhook redrive": {
    usage: "webhook redrive DELIVERY_ID",
    options: {},
    run: async (db, _f, p) => {
      const id = positional(p, "delivery ID");
      const sql = await db();
      const account = await ownerOf(sql, "webhook_deliveries", id);
      if (account === null) throw errors.notFound("delivery");
      await redriveDelivery(sql, { accountId: account }, id);
      return { redriven: true };
    },
  },
  "suppression add": {
    usage: "suppression add --account ID --address A [--reason bounce|complaint|unsubscribe|manual]",
    options: { account: { type: "string" }, address: { type: "string" }, reason: { type: "string" } },
    run: async (db, f) => {
      const input = {
        accountId: required(f, "account"),
        address: required(f, "address"),
        reason: oneOf(str(f, "reason"), ["bounce", "complaint", "unsubscribe", "manual"] as const, "reason") ?? "manual",
      };
      return addSuppression(await db(), input);
    },
  },
  "suppression list": {
    usage: "suppression list --account ID",
    options: { account: { type: "string" } },
    run: async (db, f) => {
      const account = required(f, "account");
      return listSuppressions(await db(), { accountId: account });
    },
  },
  "suppression remove": {
    usage: "suppression remove ID",
    options: {},
    run: async (db, _f, p) => {
      const id = positional(p, "suppression ID");
      const sql = await db();
      const account = await ownerOf(sql, "suppressions", id);
      return { removed: account !== null && (await removeSuppression(sql, { accountId: account }, id)) };
    },
  },
};

export function usage(): string {
  return ["usage: npm run cli -- <command> [options] [--json]", ...Object.values(commands).map((c) => `  ${c.usage}`)].join("\n");
}

function print(result: unknown, asJson: boolean): void {
  if (asJson) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const rows = Array.isArray(result) ? result : [result];
  if (rows.length === 0) {
    console.log("(none)");
    return;
  }
  for (const row of rows) {
    console.log(
      Object.entries(row as Record<string, unknown>)
        .map(([k, v]) => `${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`)
        .join("\n"),
    );
    if (rows.length > 1) console.log("");
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const name = argv.slice(0, 2).join(" ");
  const command = commands[name];
  if (!command) {
    console.error(argv.length ? `unknown command: ${name}\n${usage()}` : usage());
    return 2;
  }
  let flags: Flags;
  let positionals: string[];
  try {
    ({ values: flags, positionals } = parseArgs({
      args: argv.slice(2),
      options: { ...command.options, json: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\nusage: npm run cli -- ${command.usage}`);
    return 2;
  }

  const config = loadConfigOrReport();
  if (!config) return 2;

  // The database is opened only when a command asks for it, after its arguments are valid.
  let sql: Sql | null = null;
  let stopEmbedded: (() => Promise<void>) | null = null;
  const db = async (): Promise<Sql> => {
    if (sql) return sql;
    let url = config.databaseUrl;
    if (!url) {
      const embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort, () => {});
      url = embedded.url;
      // Only stop a server this command started itself; a running one belongs to the service.
      if (!embedded.adopted) stopEmbedded = embedded.stop;
    }
    await migrate(url);
    sql = makeSql(url, { max: 2 });
    return sql;
  };
  const services = async (): Promise<Services> =>
    makeServices(
      {
        sql: await db(),
        config,
        log: makeLogger("warn"),
        resolve: makeResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
      },
      makeTransport,
    );

  try {
    print(await command.run(db, flags, positionals, services), flags.json === true);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\nusage: npm run cli -- ${command.usage}`);
      return 2;
    }
    // Anything else is one line for the operator, never a stack trace.
    console.error(`error: ${error instanceof CoreError ? errorText(error) : ((error as Error)?.message ?? String(error))}`);
    return 1;
  } finally {
    if (sql) await (sql as Sql).end();
    if (stopEmbedded) await (stopEmbedded as () => Promise<void>)().catch(() => {});
  }
}

if (import.meta.main) {
  process.exit(await runCli(process.argv.slice(2)));
}
