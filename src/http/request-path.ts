// The path of a request's URL, read off the string: what `new URL(url).pathname` gives for the
// absolute, already normalized URL every Request carries, without parsing the whole URL again
// (the request log, the size and NUL checks and the stream check each needed it per request).

export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query !== -1) end = query;
  const fragment = url.indexOf("#", start);
  if (fragment !== -1 && fragment < end) end = fragment;
  return url.slice(start, end);
}
