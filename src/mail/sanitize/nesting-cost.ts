// htmlparser2 keeps open elements in an array it unshifts on every open tag and searches on
// every close tag, so hostile nesting costs depth × tags: minutes for 5 MB. This scan
// over-estimates that cost (it reads every "<name" as a tag and knows few implied closes) in
// array-entry comparisons, and says where parsing must stop to stay near half a second.

const PARSE_COST_BUDGET = 2e8;
const SHIFT_COST = 0.1; // moving an entry (unshift) against comparing one (indexOf)
const TAG_START = /<(\/?)([a-zA-Z][^\s/>]*)/y;
const SELF_CLOSING_SIBLINGS = new Set(["p", "li", "td", "th", "tr", "option", "dd", "dt"]);
const VOID_ELEMENTS = new Set([
  "area",
  "base",
  "basefont",
  "br",
  "col",
  "command",
  "embed",
  "frame",
  "hr",
  "image",
  "img",
  "input",
  "isindex",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

// The length of the prefix of `html` that is affordable to parse; html.length when all is.
export function affordableLength(html: string): number {
  const open: string[] = [];
  const openCount = new Map<string, number>();
  let cost = 0;
  for (let lt = html.indexOf("<"); lt >= 0; lt = html.indexOf("<", lt + 1)) {
    TAG_START.lastIndex = lt;
    const m = TAG_START.exec(html);
    if (m === null) continue;
    const name = (m[2] ?? "").toLowerCase();
    const closing = m[1] === "/";
    const searched = closing ? (openCount.get(name) ?? 0) === 0 : name === "form";
    // A search for a name that is not open scans the whole stack; a found one pops what it scans.
    cost += 1 + (searched ? open.length : closing ? 0 : open.length * SHIFT_COST);
    if (cost > PARSE_COST_BUDGET) return lt;
    if (closing) {
      if (searched) continue;
      for (let top = open.pop(); top !== undefined; top = open.pop()) {
        cost += 1 + open.length * SHIFT_COST;
        openCount.set(top, (openCount.get(top) ?? 1) - 1);
        if (top === name) break;
      }
      continue;
    }
    if (VOID_ELEMENTS.has(name)) continue;
    if (SELF_CLOSING_SIBLINGS.has(name) && open[open.length - 1] === name) continue;
    open.push(name);
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
  }
  return html.length;
}
