// Corrections of a message's verdicts by the people and agents of its account, and what the
// account learns from them. Only an authenticated caller (an API or MCP key that can read the
// message, or a signed-in dashboard user) gives feedback: mail itself never trains anything.
//
// Three axes, one standing correction each per message: spam (spam / not_spam), injection
// (injection / safe), fraud (fraud / genuine). The same verdict again changes nothing; the other
// verdict of the axis undoes the standing one first. A spam-axis correction counts the message's
// tokens into the account's statistics (account_token_stats, account_learning), which screening
// of the account's later mail applies on top of the global score (src/core/screening/spam.ts).
// Undoing removes exactly the counts it added. Fraud-axis corrections name the sender: later mail
// from an address corrected as fraud carries a sender-risk signal, and an address corrected as
// genuine counts as a known correspondent (src/core/screening/sender-risk.ts). Injection-axis
// corrections are recorded and shown; they train nothing (the detector's weights are global).
import { learningTokens } from "../../comprehension/learning/tokens.ts";
import type { Db, Sql } from "../../db.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Principal, Tenant } from "../principal.ts";

export const FEEDBACK_VERDICTS = ["spam", "not_spam", "injection", "safe", "fraud", "genuine"] as const;
export type FeedbackVerdict = (typeof FEEDBACK_VERDICTS)[number];
export type FeedbackAxis = "spam" | "injection" | "fraud";
export type FeedbackSource = "api" | "mcp" | "dashboard";

export const AXIS_OF: Record<FeedbackVerdict, FeedbackAxis> = {
  spam: "spam",
  not_spam: "spam",
  injection: "injection",
  safe: "injection",
  fraud: "fraud",
  genuine: "fraud",
};

export type Feedback = {
  id: string;
  message_id: string;
  verdict: FeedbackVerdict;
  axis: FeedbackAxis;
  /** what the account's spam statistics learned from it: `spam`, `ham`, or null (other axes) */
  trained: "spam" | "ham" | null;
  created_at: string;
};

export type FeedbackOutcome = {
  feedback: Feedback;
  /** false when the same verdict was already standing (nothing changed) */
  created: boolean;
  /** the standing verdict of the axis this one replaced, if any */
  replaced: FeedbackVerdict | null;
};

type Row = Feedback & { tokens: string[]; account_id: string };

const columns = (sql: Db) => sql`id, message_id, verdict, axis, trained, created_at, tokens::text[] as tokens, account_id`;
const publicFeedback = ({ tokens: _tokens, account_id: _account, ...feedback }: Row): Feedback => ({
  ...feedback,
  created_at: new Date(feedback.created_at).toISOString(),
});

/**
 * Gives `verdict` on a message the principal may read: the same 404 as GET /messages/{id} for
 * a message it may not see; 400 for outbound mail (its verdicts are ours to make).
 */
export async function giveFeedback(
  sql: Sql,
  principal: Principal,
  messageId: string,
  verdict: FeedbackVerdict,
  by: { source: FeedbackSource; actor: string },
): Promise<FeedbackOutcome> {
  const axis = AXIS_OF[verdict];
  return sql.begin(async (tx) => {
    // The row lock serializes corrections of one message: one standing verdict per axis.
    const [message] = await tx`
      select id, account_id, mailbox_id, direction, subject, body_clean, from_addr from messages
      where id = ${messageId} and account_id = ${principal.accountId}
        and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
        and (delivery_status is null or delivery_status = 'sent')
      for update`;
    if (!message) throw errors.notFound("message");
    if (message.direction !== "in") throw errors.validation("feedback applies to inbound messages only");
    const [standing] = await tx<Row[]>`
      select ${columns(tx)} from message_feedback where message_id = ${messageId} and axis = ${axis} and undone_at is null`;
    if (standing && standing.verdict === verdict) return { feedback: publicFeedback(standing), created: false, replaced: null };
    if (standing) await undoRow(tx, standing, by.actor);
    const trained = axis === "spam" ? (verdict === "spam" ? "spam" : "ham") : null;
    // Ascending, so concurrent corrections lock shared token rows in one order (no deadlock).
    const tokens = trained
      ? [...new Set(learningTokens({ subject: message.subject, body: message.body_clean ?? "", fromAddr: message.from_addr }))].sort(
          (a, b) => a - b,
        )
      : [];
    const [row] = await tx<Row[]>`
      insert into message_feedback (id, account_id, message_id, mailbox_id, axis, verdict, source, actor, trained, tokens)
      values (${newId("fbk")}, ${principal.accountId}, ${messageId}, ${message.mailbox_id}, ${axis}, ${verdict}, ${by.source},
        ${by.actor}, ${trained}, ${tokens.map(String)}::bigint[])
      returning ${columns(tx)}`;
    if (trained) await count(tx, principal.accountId, tokens.map(String), trained, 1);
    return { feedback: publicFeedback(row!), created: true, replaced: standing?.verdict ?? null };
  });
}

/** Undoes the standing correction of an axis (all axes when none is named); returns how many. */
export async function undoFeedback(
  sql: Sql,
  principal: Principal,
  messageId: string,
  axis: FeedbackAxis | null,
  actor: string,
): Promise<Feedback[]> {
  return sql.begin(async (tx) => {
    const [message] = await tx`
      select id from messages
      where id = ${messageId} and account_id = ${principal.accountId}
        and (${principal.mailboxId}::text is null or mailbox_id = ${principal.mailboxId})
        and (delivery_status is null or delivery_status = 'sent')
      for update`;
    if (!message) throw errors.notFound("message");
    const standing = await tx<Row[]>`
      select ${columns(tx)} from message_feedback
      where message_id = ${messageId} and undone_at is null and (${axis}::text is null or axis = ${axis})`;
    for (const row of standing) await undoRow(tx, row, actor);
    return standing.map(publicFeedback);
  });
}

async function undoRow(tx: Db, row: Row, actor: string): Promise<void> {
  await tx`update message_feedback set undone_at = now(), undone_by = ${actor} where id = ${row.id}`;
  if (row.trained)
    await count(
      tx,
      row.account_id,
      [...row.tokens].sort((a, b) => Number(a) - Number(b)),
      row.trained,
      -1,
    );
}

/** Adds (+1) or removes (-1) one message's tokens from the account's statistics. */
async function count(tx: Db, accountId: string, tokens: string[], kind: "spam" | "ham", delta: 1 | -1): Promise<void> {
  const spam = kind === "spam" ? delta : 0;
  const ham = kind === "ham" ? delta : 0;
  if (delta > 0) {
    await tx`
      insert into account_token_stats (account_id, token, spam, ham)
      select ${accountId}, t, ${spam}, ${ham} from unnest(${tokens}::bigint[]) as t
      on conflict (account_id, token) do update
        set spam = account_token_stats.spam + excluded.spam, ham = account_token_stats.ham + excluded.ham`;
  } else {
    await tx`
      update account_token_stats set spam = greatest(spam + ${spam}, 0), ham = greatest(ham + ${ham}, 0)
      where account_id = ${accountId} and token = any(${tokens}::bigint[])`;
    await tx`delete from account_token_stats where account_id = ${accountId} and token = any(${tokens}::bigint[]) and spam = 0 and ham = 0`;
  }
  await tx`
    insert into account_learning (account_id, spam_messages, ham_messages) values (${accountId}, greatest(${spam}, 0), greatest(${ham}, 0))
    on conflict (account_id) do update
      set spam_messages = greatest(account_learning.spam_messages + ${spam}, 0),
        ham_messages = greatest(account_learning.ham_messages + ${ham}, 0), updated_at = now()`;
}

/** The account's statistics for these tokens, or null when it has no spam-axis corrections. */
export async function accountStatsFor(
  db: Db,
  tenant: Tenant,
  tokens: number[],
): Promise<{ spamMessages: number; hamMessages: number; tokens: Map<number, { spam: number; ham: number }> } | null> {
  const { accountId } = tenant;
  const [learning] = await db`select spam_messages, ham_messages from account_learning where account_id = ${accountId}`;
  if (!learning || learning.spam_messages + learning.ham_messages === 0) return null;
  const rows = await db<{ token: string; spam: number; ham: number }[]>`
    select token::text as token, spam, ham from account_token_stats
    where account_id = ${accountId} and token = any(${tokens.map(String)}::bigint[])`;
  return {
    spamMessages: learning.spam_messages,
    hamMessages: learning.ham_messages,
    tokens: new Map(rows.map((r) => [Number(r.token), { spam: r.spam, ham: r.ham }])),
  };
}

export type FeedbackListing = Feedback & { source: FeedbackSource; undone_at: string | null; subject?: string; from_addr?: string };

/** A message's corrections, standing and undone, newest first (dashboard). */
export async function feedbackOfMessage(db: Db, tenant: Tenant, messageId: string): Promise<FeedbackListing[]> {
  const { accountId } = tenant;
  return db<FeedbackListing[]>`
    select id, message_id, verdict, axis, trained, created_at, source, undone_at from message_feedback
    where account_id = ${accountId} and message_id = ${messageId} order by created_at desc, id desc limit 50`;
}

/** The account's latest corrections and what its statistics hold (dashboard). */
export async function accountCorrections(
  db: Db,
  tenant: Tenant,
  limit = 100,
): Promise<{ recent: FeedbackListing[]; spamMessages: number; hamMessages: number; tokens: number }> {
  const { accountId } = tenant;
  const recent = await db<FeedbackListing[]>`
    select f.id, f.message_id, f.verdict, f.axis, f.trained, f.created_at, f.source, f.undone_at, m.subject, m.from_addr
    from message_feedback f join messages m on m.id = f.message_id
    where f.account_id = ${accountId} order by f.created_at desc, f.id desc limit ${limit}`;
  const [learning] = await db`
    select coalesce((select spam_messages from account_learning where account_id = ${accountId}), 0) as spam,
      coalesce((select ham_messages from account_learning where account_id = ${accountId}), 0) as ham,
      (select count(*)::int from account_token_stats where account_id = ${accountId}) as tokens`;
  return { recent: [...recent], spamMessages: learning!.spam, hamMessages: learning!.ham, tokens: learning!.tokens };
}
