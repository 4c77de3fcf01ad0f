// POST /api/v1/domains, GET /api/v1/domains, POST /api/v1/domains/{id}/verify.
import { t } from "elysia";
import { createDomain, listDomains, verifyDomain } from "../../core/domains/index.ts";
import type { Services } from "../../core/services.ts";
import { authErrors, ErrorBody, PathId, strictObject } from "../../request/models.ts";
import { apiRoutes } from "../route-kit.ts";

const DomainStatus = t.Union([t.Literal("pending"), t.Literal("verified"), t.Literal("failed")]);
const DnsRecord = t.Object(
  {
    type: t.String(),
    name: t.String(),
    value: t.String(),
    priority: t.Optional(t.Integer()),
    purpose: t.String(),
  },
  { description: "a DNS record the domain owner must publish" },
);
const DomainCreated = strictObject({ id: t.String(), name: t.String(), status: DomainStatus, records: t.Array(DnsRecord) });
const Domain = strictObject({ id: t.String(), name: t.String(), status: DomainStatus, created_at: t.String() });

export const domainRoutes = (svc: Services) =>
  apiRoutes(svc, "domains")
    .post("/domains", ({ principal, body }) => createDomain(svc, principal, body.name), {
      auth: "accountPlane",
      body: strictObject({ name: t.String({ minLength: 1, maxLength: 253 }) }),
      response: { 200: DomainCreated, 400: ErrorBody, ...authErrors, 413: ErrorBody },
      detail: {
        summary: "Register a custom domain",
        description:
          "Paid plan only. Returns the records to publish: MX to our SMTP host, SPF, a DKIM key generated " +
          "for this domain, and DMARC. Registering a name the account already has returns that " +
          "registration again.",
      },
    })
    .get("/domains", async ({ principal }) => ({ domains: await listDomains(svc, principal) }), {
      auth: "accountRead",
      response: { 200: strictObject({ domains: t.Array(Domain) }), ...authErrors },
      detail: { summary: "List custom domains", description: "Needs `can_read`; a mailbox-bound key is refused." },
    })
    .post("/domains/:id/verify", ({ principal, params }) => verifyDomain(svc, principal, params.id), {
      auth: "accountPlane",
      params: t.Object({ id: PathId }),
      response: { 200: strictObject({ status: DomainStatus }), ...authErrors, 404: ErrorBody },
      detail: {
        summary: "Verify a custom domain",
        description:
          "Paid plan only. Looks the records up in DNS: `pending` until every record is seen, then " +
          "`verified`; `failed` after 72 hours pending (a later successful verify still turns it " +
          "`verified`).",
      },
    });
