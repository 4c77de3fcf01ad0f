// A plain nodemailer SMTPConnection to a loopback listener, for load generators (bench, corpus
// ingest) that keep connections open and send many messages over each.
import SMTPConnection from "nodemailer/lib/smtp-connection";

export function connectSmtp(port: number, options: { name: string; socketTimeoutMs: number }): Promise<SMTPConnection> {
  const connection = new SMTPConnection({
    host: "127.0.0.1",
    port,
    ignoreTLS: true,
    name: options.name,
    socketTimeout: options.socketTimeoutMs,
    logger: false,
  });
  return new Promise((resolve, reject) => {
    connection.once("error", reject);
    connection.connect(() => {
      connection.removeListener("error", reject);
      // A later socket error closes the connection; the send in flight reports it.
      connection.on("error", () => {});
      resolve(connection);
    });
  });
}
