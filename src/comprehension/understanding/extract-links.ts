// Links in the cleaned body, sorted into what an agent acts on: sign-in (magic links, email
// confirmation), password reset, unsubscribe. The sanitizer writes an anchor as
// "text [url]", so the words just before a URL are its anchor text or the sentence leading to
// it; those words and the URL's path decide its kind.

const URL = /(?<![\w@])https?:\/\/[^\s<>"'[\]{}|\\^`]{1,2048}/gi;
const TRAILING = ".,;:!?'\"*";
const HEADER_URL = /<(https?:\/\/[^>\s]{1,2048})>/gi;

const WORDS_BEFORE = 100;
const MAX_LINKS = 20;
const MAX_KIND = 5;

const UNSUB_PATH = /unsubscribe|\/unsub\b|opt-?out|email[-_]?preferences|manage[-_]?(?:subscription|preferences)/i;
const UNSUB_WORDS = /\b(?:unsubscribe|opt[- ]out|manage (?:your )?(?:email |subscription )?preferences|stop receiving)\b[^\n]{0,60}$/i;
const RESET_PATH = /(?:reset|forgot|recover)[\w-]{0,20}|\/password\b|passwd/i;
const RESET_WORDS =
  /\b(?:reset (?:your |the )?password|password reset|forgot (?:your )?password|choose a new password|set a new password)\b[^\n]{0,80}$/i;
const SIGNIN_PATH =
  /\/(?:login|log-in|signin|sign-in|sign_in|magic|magic-link|verify|verification|confirm|activate|auth|session|sso|passwordless|otp)(?=[/?#._-]|$)|[?&](?:magic|login_token|signin_token)=/i;
const SIGNIN_WORDS =
  /\b(?:sign(?:ing)? ?in|log(?:ging)? ?in|magic link|verify (?:your )?(?:email|address|account)|confirm (?:your )?(?:email|address|account|sign-?up|subscription)|activate (?:your )?account)\b[^\n]{0,60}$/i;

export type ClassifiedLinks = {
  all: string[];
  signIn: string[];
  reset: string[];
  unsubscribe: string[];
};

export function findLinks(text: string): { url: string; index: number }[] {
  const out: { url: string; index: number }[] = [];
  for (const m of text.matchAll(URL)) out.push({ url: trimUrl(m[0]), index: m.index });
  return out;
}

export function classifyLinks(text: string, listUnsubscribe: string | null): ClassifiedLinks {
  const all = new Set<string>();
  const signIn = new Set<string>();
  const reset = new Set<string>();
  const unsubscribe = new Set<string>();
  for (const m of (listUnsubscribe ?? "").matchAll(HEADER_URL)) add(unsubscribe, m[1]!);

  for (const { url, index } of findLinks(text)) {
    if (all.size < MAX_LINKS) all.add(url);
    const before = text.slice(Math.max(0, index - WORDS_BEFORE), index);
    const path = pathOf(url);
    if (UNSUB_PATH.test(path) || UNSUB_WORDS.test(before)) add(unsubscribe, url);
    else if (RESET_PATH.test(path) || RESET_WORDS.test(before)) add(reset, url);
    else if (SIGNIN_PATH.test(path) || SIGNIN_WORDS.test(before)) add(signIn, url);
  }
  return { all: [...all], signIn: [...signIn], reset: [...reset], unsubscribe: [...unsubscribe] };
}

function add(set: Set<string>, url: string): void {
  if (set.size < MAX_KIND) set.add(url);
}

// Sentence punctuation and an unbalanced closing parenthesis are not part of the URL.
// A loop from the end, not a `[...]+$` regex: that one is quadratic on long punctuation runs.
function trimUrl(url: string): string {
  let unbalanced = 0;
  for (const c of url) unbalanced += c === ")" ? 1 : c === "(" ? -1 : 0;
  let end = url.length;
  while (end > 0) {
    const c = url[end - 1]!;
    if (TRAILING.includes(c)) end--;
    else if (c === ")" && unbalanced > 0) {
      end--;
      unbalanced--;
    } else break;
  }
  return url.slice(0, end);
}

/** The URL without its scheme and host: hosts like "login.example.com" say nothing of a link. */
function pathOf(url: string): string {
  const slash = url.indexOf("/", url.indexOf("//") + 2);
  return slash < 0 ? "" : url.slice(slash);
}
