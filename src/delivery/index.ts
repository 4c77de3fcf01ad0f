// Chooses the outbound transport from DELIVERY_TRANSPORT.
import type { Services } from "../core/services.ts";
import type { DeliveryTransport } from "../core/transport.ts";
import { makeLocalTransport } from "./local.ts";
import { makeMxTransport } from "./mx.ts";
import { makeSmtpRelayTransport } from "./smtp-relay.ts";

export function makeTransport(svc: Services): DeliveryTransport {
  const { config } = svc;
  switch (config.deliveryTransport) {
    case "local":
      return makeLocalTransport(svc);
    case "smtp":
      return makeSmtpRelayTransport(config.smtpRelayUrl!, { ehloName: config.smtp.hostname, timeoutMs: config.deliveryTimeoutMs });
    case "mx":
      return makeMxTransport({
        resolve: svc.resolve,
        port: config.mxPort,
        ehloName: config.smtp.hostname,
        timeoutMs: config.deliveryTimeoutMs,
        allowPrivateNetworks: config.mxAllowPrivateNetworks,
      });
  }
}
