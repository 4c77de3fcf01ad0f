// A self-contained, human-readable API reference rendered from the OpenAPI document (no CDN); the
// descriptions' Markdown is rendered (src/http/markdown.ts), everything escaped first.
import { escapeHtml } from "../html-escape.ts";
import { markdownToHtml } from "./markdown.ts";

type Spec = { info?: { title?: string; version?: string; description?: string }; paths?: Record<string, Record<string, Operation>> };
type Operation = {
  summary?: string;
  description?: string;
  responses?: Record<string, { description?: string }>;
  requestBody?: unknown;
  parameters?: { name: string; in: string; required?: boolean }[];
};

export function referencePage(spec: Spec): string {
  const sections: string[] = [];
  for (const [path, methods] of Object.entries(spec.paths ?? {})) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = (operation.parameters ?? [])
        .map((p) => `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}${p.required ? ", required" : ""})</li>`)
        .join("");
      const body = operation.requestBody
        ? `<details><summary>Request body schema</summary><pre>${escapeHtml(JSON.stringify(operation.requestBody, null, 2))}</pre></details>`
        : "";
      const responses = Object.entries(operation.responses ?? {})
        .map(
          ([status, response]) =>
            `<li><strong>${escapeHtml(status)}</strong> ${markdownToHtml(response.description ?? "").replace(/^<p>|<\/p>$/g, "")}</li>`,
        )
        .join("");
      sections.push(`<section><h2><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h2>
<p><strong>${escapeHtml(operation.summary ?? "")}</strong></p>${markdownToHtml(operation.description ?? "")}
${parameters ? `<h3>Parameters</h3><ul>${parameters}</ul>` : ""}${body}<h3>Responses</h3><ul>${responses}</ul></section>`);
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(spec.info?.title ?? "")} reference</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
section{border-top:1px solid #ddd;padding:.5rem 0}.method{background:#234;color:#fff;padding:0 .4rem;border-radius:3px}
pre{background:#f5f5f5;padding:.5rem;overflow:auto;white-space:pre-wrap}</style></head><body>
<h1>${escapeHtml(spec.info?.title ?? "")} <small>${escapeHtml(spec.info?.version ?? "")}</small></h1>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a></p>
${markdownToHtml(spec.info?.description ?? "")}
${sections.join("\n")}</body></html>`;
}
