// create_domain, list_domains, verify_domain: the /api/v1/domains endpoints (paid plan for writes).
import { t } from "elysia";
import { createDomain, listDomains, verifyDomain } from "../core/domains/index.ts";
import { strictObject } from "../request/models.ts";
import { defineTool } from "./tool.ts";

const PLAN =
  "403 `custom domains require a paid plan` is final for this account; 403 key_scope means a key bound to one mailbox cannot manage domains.";

export const listDomainsTool = defineTool({
  name: "list_domains",
  title: "List custom domains",
  description: `List the account's custom sending domains: {domains: [{id, name, status, created_at}]}, status pending, verified or failed. ${PLAN}`,
  input: strictObject({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  endpointClass: "accountRead",
  run: async ({ svc, principal }) => ({ body: { domains: await listDomains(svc, principal) } }),
});

export const createDomainTool = defineTool({
  name: "create_domain",
  title: "Register a custom domain",
  description:
    "Register a domain you own for sending and receiving; returns {id, name, status, records}: the DNS records a human must publish. " +
    `Then call verify_domain (later: DNS takes time). Registering the same name again returns the same registration. 400: not a valid domain name. ${PLAN}`,
  input: strictObject({ name: t.String({ minLength: 1, maxLength: 253, description: "the domain name, e.g. example.com" }) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  endpointClass: "accountPlane",
  run: async ({ svc, principal }, args) => ({ body: await createDomain(svc, principal, args.name) }),
});

export const verifyDomainTool = defineTool({
  name: "verify_domain",
  title: "Verify a custom domain",
  description:
    "Look the domain's records up in DNS now; returns {status}: `pending` until every record is seen (try again later, minutes to hours, " +
    `not in a tight loop), then \`verified\`; \`failed\` after 72 hours pending. 404 when the domain is not this account's. ${PLAN}`,
  input: strictObject({ id: t.String({ minLength: 1, maxLength: 100, description: "the domain's id (dom_...)" }) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  endpointClass: "accountPlane",
  run: async ({ svc, principal }, args) => ({ body: await verifyDomain(svc, principal, args.id) }),
});
