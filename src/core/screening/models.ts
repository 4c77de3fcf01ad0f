// The models screening scores with (the injection detector's and the spam classifier's, a few MB
// of JSON) are read once per process. Read at the first message, parsing them held the event loop
// for hundreds of milliseconds, every request waiting; a worker reads them as it starts instead,
// before it takes a job (and before the service answers /readyz).
//
// The scorers' regular expressions are compiled, and their lazy tables filled, on first use: the
// first message paid 20-30 ms in each of the injection detector and the spam classifier and 5 ms in
// sender risk, one stretch the event loop was held for. One small message through each, here,
// moves that to start-up too.
import { shippedModel } from "../../comprehension/injection/model.ts";
import { scoreInjectionRisk } from "../../comprehension/injection/risk.ts";
import { assessSenderRisk } from "../../comprehension/sender-risk/assess.ts";
import { classifySpam, loadSpamModel } from "../../comprehension/spam/classifier.ts";

const WARM_UP_BODY = "Hello, the invoice for March is attached. Please see the attachment and reply with any questions.";
const WARM_UP_MESSAGE =
  "From: Warm Up <warm-up@example.com>\r\nTo: inbox@example.net\r\nSubject: Invoice for March\r\n" +
  "Message-ID: <warm-up@example.com>\r\nDate: Sat, 28 Nov 2026 10:00:00 +0000\r\n" +
  `Content-Type: text/plain; charset=utf-8\r\n\r\n${WARM_UP_BODY}\r\n`;

export async function loadScreeningModels(): Promise<void> {
  shippedModel();
  const spamModel = await loadSpamModel();
  await classifySpam(WARM_UP_MESSAGE, spamModel, { receivedAt: new Date(0) });
  scoreInjectionRisk({ subject: "Invoice for March", bodyClean: WARM_UP_BODY, hiddenText: "", report: {} });
  assessSenderRisk({
    fromHeader: "Warm Up <warm-up@example.com>",
    fromAddr: "warm-up@example.com",
    replyTo: null,
    listId: null,
    subject: "Invoice for March",
    body: WARM_UP_BODY,
    auth: null,
    context: { accountDomains: [], people: [], mailboxes: [], correspondents: [] },
  });
}
