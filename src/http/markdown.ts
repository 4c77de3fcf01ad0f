// The Markdown the OpenAPI descriptions are written in, as HTML for the /docs page: a small subset
// (paragraphs, "- " lists, `code`, **strong**, *emphasis*). The text is escaped before anything
// else, so a description can never become markup of its own; links stay text.
import { escapeHtml } from "../html-escape.ts";

function inline(text: string): string {
  // Odd pieces between backticks are code, left as they are; the others get strong and emphasis.
  return text
    .split("`")
    .map((piece, i, pieces) => {
      if (i % 2 === 1 && i < pieces.length - 1) return `<code>${escapeHtml(piece)}</code>`;
      const prose = escapeHtml(i % 2 === 1 ? `\`${piece}` : piece);
      return prose
        .replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>")
        .replace(/(^|[\s(])\*([^*\s][^*\n]*?)\*(?=[\s).,;:!?]|$)/g, "$1<em>$2</em>");
    })
    .join("");
}

export function markdownToHtml(markdown: string): string {
  return markdown
    .trim()
    .split(/\n\s*\n/)
    .map((block) => {
      const lines = block.split("\n").map((line) => line.trim());
      if (lines.every((line) => /^[-*] /.test(line)))
        return `<ul>${lines.map((line) => `<li>${inline(line.slice(2))}</li>`).join("")}</ul>`;
      return `<p>${inline(lines.join(" "))}</p>`;
    })
    .join("\n");
}
