// The plain message the compose tests build on: one sender with a display name, one recipient,
// a two-line text body, a fixed Message-ID and date, so bytes can be compared.
import type { ComposeInput } from "../../src/mail/compose.ts";

export const BASE_COMPOSE_INPUT: ComposeInput = {
  from: "agent-bot@mail.example.com",
  fromName: "Support Bot",
  to: "alice@example.org",
  subject: "Hello there",
  text: "Line one\nLine two\n",
  messageId: "msg_123@mail.example.com",
  date: new Date("2024-05-01T10:00:00Z"),
};
