// The models screening scores with (the injection detector's and the spam classifier's, a few MB
// of JSON) are read once per process. Read at the first message, parsing them held the event loop
// for hundreds of milliseconds, every request waiting; a worker reads them as it starts instead,
// before it takes a job (and before the service answers /readyz).
//
// The scorers' regular expressions are compiled, and their lazy tables filled, on first use, and
// the engine compiles a pattern apart for text of one-byte characters and for text with others
// (Cyrillic, CJK): the first message of each kind paid 20-50 ms in each of the injection detector
// and the spam classifier and 5 ms in sender risk, one stretch the event loop was held for. A small
// message of each kind through each scorer, here, moves that to start-up too.
import { shippedModel } from "../../comprehension/injection/model.ts";
import { scoreInjectionRisk } from "../../comprehension/injection/risk.ts";
import { assessSenderRisk } from "../../comprehension/sender-risk/assess.ts";
import { classifySpam, loadSpamModel } from "../../comprehension/spam/classifier.ts";

const WARM_UP_BODIES = [
  "Hello, the invoice for March is attached. Please see the attachment and reply with any questions.",
  "Здравствуйте, счёт за март во вложении. 请查看附件。添付ファイルをご確認ください。",
];

const warmUpMessage = (body: string) =>
  "From: Warm Up <warm-up@example.com>\r\nTo: inbox@example.net\r\nSubject: Invoice for March\r\n" +
  "Message-ID: <warm-up@example.com>\r\nDate: Sat, 28 Nov 2026 10:00:00 +0000\r\n" +
  `Content-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;

export async function loadScreeningModels(): Promise<void> {
  shippedModel();
  const spamModel = await loadSpamModel();
  for (const body of WARM_UP_BODIES) {
    await classifySpam(warmUpMessage(body), spamModel, { receivedAt: new Date(0) });
    scoreInjectionRisk({ subject: "Invoice for March", bodyClean: body, hiddenText: "", report: {} });
    assessSenderRisk({
      fromHeader: "Warm Up <warm-up@example.com>",
      fromAddr: "warm-up@example.com",
      replyTo: null,
      listId: null,
      subject: "Invoice for March",
      body,
      auth: null,
      context: { accountDomains: [], people: [], mailboxes: [], correspondents: [] },
    });
  }
}
