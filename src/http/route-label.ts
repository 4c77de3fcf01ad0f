// The route pattern a request matched ("/api/v1/messages/:id"), recorded by the app once Elysia
// has routed it and read by the server for the request-duration metric. A pattern, never the
// path, so ids and probes of unknown paths cannot grow the metric's label set.
const matched = new WeakMap<Request, string>();

export function recordRoute(request: Request, route: string): void {
  matched.set(request, route);
}

export function routeLabel(request: Request): string {
  return matched.get(request) ?? "unmatched";
}

const methods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function methodLabel(method: string): string {
  return methods.has(method) ? method : "OTHER";
}
