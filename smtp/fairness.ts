// Fair use of the listener's connection slots: no client address holds more than its share
// (SMTP_MAX_CONNECTIONS_PER_ADDRESS; IPv6 counted per /64), no session lasts longer than
// SMTP_MAX_SESSION_S, and no session sends more than SMTP_MAX_COMMANDS commands of any kind (a
// NOOP every 20 s resets the idle timeout, not this). A session over either limit is told 421 and
// closed, and its slot is free again.
import type { SMTPServer, SMTPServerSession } from "smtp-server";
import type { Config } from "../src/config.ts";
import { networkOf, parseAddress } from "../src/ip-address.ts";
import type { Logger } from "../src/log.ts";

/** What smtp-server's connection object offers that this module uses (smtp-server 3.21). */
type Connection = {
  session: SMTPServerSession;
  send(code: number, message: string): void;
  close(): void;
  _onCommand(command: Buffer, callback?: () => void): void;
};

class Refusal extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** The address a client is counted under: IPv4 as it is, IPv6 as its /64. */
export function clientKey(address: string | undefined): string {
  const parsed = address ? parseAddress(address) : null;
  if (!parsed) return "unknown";
  return parsed.kind() === "ipv4" ? parsed.toString() : `${networkOf(parsed, 64).toString()}/64`;
}

export type Fairness = {
  /** smtp-server's onConnect: refuses a client over its share (421), or arms the session's limits. */
  onConnect(session: SMTPServerSession, callback: (error?: Error | null) => void): void;
  /** smtp-server's onClose: frees the session's slot. */
  onClose(session: SMTPServerSession): void;
};

export function makeFairness(server: () => SMTPServer, config: Config["smtp"], log: Logger): Fairness {
  const perClient = new Map<string, number>();
  const armed = new Map<string, { client: string; timer: ReturnType<typeof setTimeout> }>();
  let warned = false;

  const connectionOf = (session: SMTPServerSession): Connection | null => {
    for (const connection of (server() as unknown as { connections: Set<Connection> }).connections) {
      if (connection.session === session) return connection;
    }
    return null;
  };

  const end = (connection: Connection, session: SMTPServerSession, reason: string, message: string) => {
    log.info("smtp.session_limit", { session_id: session.id, remote_ip: session.remoteAddress, reason });
    connection.send(421, message);
    connection.close();
  };

  return {
    onConnect(session, callback) {
      const client = clientKey(session.remoteAddress);
      const open = perClient.get(client) ?? 0;
      if (open >= config.maxConnectionsPerAddress) {
        log.info("smtp.client_refused", { session_id: session.id, remote_ip: session.remoteAddress, open });
        return callback(new Refusal(421, "4.7.0 Too many connections from your address, try again later"));
      }
      perClient.set(client, open + 1);
      const connection = connectionOf(session);
      const timer = setTimeout(() => {
        if (connection) end(connection, session, "duration", "4.4.2 Session lasted too long, reconnect to go on");
      }, config.maxSessionMs);
      timer.unref?.();
      armed.set(session.id, { client, timer });
      if (connection && typeof connection._onCommand === "function") {
        const handle = connection._onCommand.bind(connection);
        let commands = 0;
        connection._onCommand = (command, next) => {
          if (++commands > config.maxCommands) return end(connection, session, "commands", "4.7.0 Too many commands, reconnect to go on");
          handle(command, next);
        };
      } else if (!warned) {
        warned = true;
        log.error("smtp.command_limit_unavailable", { reason: "smtp-server's connection object changed; commands are not counted" });
      }
      callback();
    },
    onClose(session) {
      const slot = armed.get(session.id);
      if (!slot) return;
      armed.delete(session.id);
      clearTimeout(slot.timer);
      const open = (perClient.get(slot.client) ?? 1) - 1;
      if (open <= 0) perClient.delete(slot.client);
      else perClient.set(slot.client, open);
    },
  };
}
