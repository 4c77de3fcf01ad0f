// Runs in a Worker: parses one PDF or DOCX and posts back its text. The parsers run here, not on
// the job's thread, so a file that sends them into an endless loop is ended by terminating the
// Worker at the deadline instead of stalling the whole worker process.
const scope = globalThis as unknown as { onmessage: ((event: MessageEvent) => void) | null; postMessage(message: unknown): void };

async function parse(kind: "pdf" | "docx", content: Uint8Array): Promise<string> {
  if (kind === "pdf") {
    const { extractText, getDocumentProxy } = await import("unpdf");
    const pdf = await getDocumentProxy(content, { isEvalSupported: false, stopAtErrors: false, verbosity: 0 });
    try {
      return (await extractText(pdf, { mergePages: true })).text;
    } finally {
      await pdf.destroy();
    }
  }
  const mammoth = await import("mammoth");
  return (await mammoth.extractRawText({ buffer: Buffer.from(content.buffer, content.byteOffset, content.byteLength) })).value;
}

scope.onmessage = (event: MessageEvent) => {
  const { kind, content } = event.data as { kind: "pdf" | "docx"; content: Uint8Array };
  parse(kind, content).then(
    (text) => scope.postMessage({ ok: true, text }),
    (error) => scope.postMessage({ ok: false, error: String((error as Error)?.message ?? error) }),
  );
};
