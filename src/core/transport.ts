/**
 * The contract every outbound transport (local, SMTP relay, direct MX) keeps.
 *
 * The outcome kinds map one to one onto the send responses: `sent` → 201, `permanent` → 400
 * (`retryable` false), `transient` → 502 `retryable` true, `unknown` → 502
 * `delivery_outcome_unknown`. `unknown` means the receiving server may hold the message: the
 * caller must never resend it blindly.
 */
export type DeliveryOutcome = (
  | { kind: "sent"; providerMessageId: string; response: string }
  | { kind: "permanent"; error: string; responseCode?: number }
  | { kind: "transient"; error: string; responseCode?: number }
  | { kind: "unknown"; error: string }
) & {
  /** How far the SMTP transaction got (connect ... final), recorded with the outcome. */
  stage?: string;
};

export type DeliveryEnvelope = { from: string; to: string };

export type DeliveryMeta = {
  /** The Message-ID of the message, without angle brackets. */
  messageId: string;
  /**
   * Called once the server has agreed to take the message (its 354) and before any byte of it is
   * written, so before the final dot (for the local transport, before anything is stored): it
   * records durably that the receiver may now accept it. If it throws, the transport must not let
   * the message be accepted (no final dot) and answers `transient`: the attempt was handed to
   * someone else, or the mark could not be written.
   */
  beforeFinalDot?: () => Promise<void>;
};

export interface DeliveryTransport {
  name: string;
  /** Never throws for delivery failures: every failure is a DeliveryOutcome. */
  deliver(envelope: DeliveryEnvelope, raw: Uint8Array, meta: DeliveryMeta): Promise<DeliveryOutcome>;
  close?(): Promise<void>;
}
