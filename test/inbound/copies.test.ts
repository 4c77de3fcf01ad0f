// Two copies of every role over one database (`npm run chaos -- copies --fast --messages 60 --rate 20`
// as a test): SMTP load over both listeners, HTTP over both APIs, one copy of each role SIGKILLed
// mid-load. Every 250 is stored once and delivered; one client_id raced to both APIs sends once;
// sign-in throttling and a key's rate limit count across copies; a stream on one API hears events
// made through the other.
import { expect, test } from "bun:test";
import { runChaos, summaryLine } from "../../bench/chaos/harness.ts";
import { scenarios } from "../../bench/chaos/scenarios.ts";

test("copies (fast): two of each role, one of each killed, nothing lost, twice, or out of step", async () => {
  const summary = await runChaos("copies", scenarios.copies!, { messages: 60, rate: 20, fast: true, drainMs: 30_000 });
  console.log(summaryLine(summary));
  expect(summary.failed).toEqual([]);
  expect(summary.acknowledged).toBe(summary.sent);
  expect({ stored: summary.stored, delivered: summary.delivered, lost: summary.lost, duplicated: summary.duplicated }).toEqual({
    stored: summary.sent,
    delivered: summary.sent,
    lost: 0,
    duplicated: 0,
  });
  expect(summary.longestDelayMs).toBeLessThan(60_000); // a loaded machine adds seconds; a job left to Graphile Worker waits 4 h
}, 150_000); // the retried pair may wait out a dead holder's 20 s claim
