// The option scripts/patch-smtp-server.mjs adds to smtp-server: the pause before the 220 greeting.
import "smtp-server";

declare module "smtp-server" {
  interface SMTPServerOptions {
    /** Milliseconds before the greeting; a command that arrives sooner is refused with 421. */
    greetingDelay?: number;
  }
}
