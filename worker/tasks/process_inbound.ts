// process_inbound: everything that happens to an inbound message after the listener committed it
// and answered 250: sender authentication, bounce and complaint handling. Idempotent, so a retry
// after a crash repeats nothing harmful.
import type { Services } from "../../src/core/services.ts";
import { applyDeliveryReports } from "../../src/core/bounces.ts";
import { authenticateInbound } from "../../src/mail/authenticate.ts";

export async function processInbound(svc: Services, payload: { message_id: string }): Promise<void> {
  const { sql, config, log } = svc;
  const [message] = await sql`
    select m.id, m.account_id, m.processed_at, r.content, r.remote_ip, r.helo, r.mail_from
    from messages m left join raw_messages r on r.id = m.raw_message_id
    where m.id = ${payload.message_id}`;
  if (!message) {
    log.warn("inbound.missing", { message_id: payload.message_id });
    return;
  }
  if (message.processed_at) return;

  const auth = message.content
    ? await authenticateInbound({
        raw: message.content,
        remoteIp: message.remote_ip ?? "",
        helo: message.helo ?? "",
        mailFrom: message.mail_from ?? "",
        mode: message.remote_ip ? config.authMode : "off",
        trustedAuthservIds: config.trustedAuthservIds,
        resolver: svc.resolve,
        mtaHostname: config.smtp.hostname,
      })
    : { results: null, dmarcPolicy: null };

  const report = await applyDeliveryReports(sql, { id: message.id as string, account_id: message.account_id as string });

  await sql`
    update messages set auth_results = ${auth.results ? sql.json(auth.results) : null}, processed_at = now()
    where id = ${message.id} and processed_at is null`;
  log.info("inbound.processed", {
    message_id: message.id,
    auth: auth.results,
    report: report.kind,
    suppressed: report.kind === "none" ? 0 : report.suppressed.length,
  });
}
