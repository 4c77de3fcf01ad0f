// Outgoing attachments with ClamAV configured (CLAMD_ADDRESS): a real clamd scans every file as it
// is added; the EICAR test file is refused with a clear error and never reaches the draft, a clean
// file passes, and a scanner that does not answer refuses the file (fail closed) rather than letting
// it through unscanned.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { closedPort, type Outbound, startOutbound } from "../support/outbound.ts";
import { EICAR, type Scanner, startClamd } from "../support/scanners.ts";
import { needTools } from "../support/system-tools.ts";

setDefaultTimeout(60_000);

const haveClamd = await needTools(import.meta.path, ["clamd"], "outgoing attachments scanned by clamd");
let clamd: Scanner | null = null;
let o: Outbound;
let down: Outbound;

beforeAll(async () => {
  if (!haveClamd) return;
  clamd = await startClamd();
  o = await startOutbound({ CLAMD_ADDRESS: clamd.address });
  down = await startOutbound({ CLAMD_ADDRESS: `127.0.0.1:${await closedPort()}`, SCANNER_TIMEOUT_MS: "2000" });
});

afterAll(async () => {
  if (!haveClamd) return;
  await Promise.all([o.close(), down.close(), clamd?.close()]);
});

async function attach(out: Outbound, name: string, content: string) {
  const created = await out.ctx.request("POST", "/api/v1/drafts", {
    key: out.owner.key,
    body: { mailbox_id: out.mailbox.id, to: "bob@example.org", text: "see attached" },
  });
  const form = new FormData();
  form.append("file", new File([content], name, { type: "text/plain" }));
  const response = await out.ctx.app.handle(
    new Request(`http://localhost/api/v1/drafts/${created.body.id}/attachments`, {
      method: "POST",
      headers: { authorization: `Bearer ${out.owner.key}` },
      body: form,
    }),
  );
  return { draftId: created.body.id as string, status: response.status, body: await response.json() };
}

describe.skipIf(!haveClamd)("ClamAV scans outgoing attachments", () => {
  test("EICAR is refused with the signature named; nothing is stored", async () => {
    const refused = await attach(o, "eicar.txt", EICAR);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      error: "attachment refused: the virus scanner found Test.EICAR.UNOFFICIAL",
      code: "attachment_infected",
    });
    const [row] = await o.ctx.sql`select count(*)::int as n from draft_attachments where draft_id = ${refused.draftId}`;
    expect(row!.n).toBe(0);
  });

  test("a clean file passes", async () => {
    expect((await attach(o, "notes.txt", "nothing to see")).status).toBe(201);
  });

  test("a scanner that does not answer refuses the file (503, retryable)", async () => {
    const refused = await attach(down, "notes.txt", "nothing to see");
    expect(refused.status).toBe(503);
    expect(refused.body.retryable).toBe(true);
  });
});
