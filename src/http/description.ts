// The prose at the top of /openapi.json: the decisions the API contract leaves open (docs/decisions.md),
// written where clients read.

// One string per paragraph, joined by blank lines (Markdown) when served.
export const apiDescription = [
  "HTTP and JSON email service for software agents.",
  "All /api/v1 endpoints take `Authorization: Bearer <API_KEY>`. A missing or malformed header is " +
    "401 `missing bearer token`; an unknown or revoked key is 401 `invalid api key`; a key whose " +
    "scope is not permitted for an endpoint is 403 `scope '<scope>' not permitted for this endpoint` " +
    "(no code).",
  "Endpoint classes: POST /mailboxes accepts bootstrap, api and mcp keys and refuses mailbox-bound " +
    "keys; /domains accepts api and mcp keys and refuses mailbox-bound keys; every GET (messages, " +
    "drafts, mailboxes, domains) needs `can_read`; send and draft writes need `can_send`. The Bearer " +
    "scheme name is case-insensitive.",
  "Order of checks on a send: authentication (401/403 scope), body validation (400), mailbox and " +
    "key binding (404/403), idempotency (200/409), send lists (403), suppression (422), approval " +
    "(202), quota (402), delivery (201/400/502).",
  "Errors are JSON. Validation failures are 400 naming the field and rule; malformed JSON is 400; " +
    "unknown body fields are 400; bodies over the configured size are 413; a body under a " +
    "Content-Type other than application/json is 415; unknown routes are 404 " +
    '`{"error":"not found"}`.',
  "Additions beside the contract's bodies (docs/api.md): attachments on drafts (POST " +
    "/drafts/{id}/attachments takes multipart/form-data), forwarding and calendar replies " +
    "(POST /messages/{id}/forward and /rsvp, with send's checks, order and idempotency), and labels on " +
    "messages and threads, whose changes need `can_read`.",
].join("\n\n");
