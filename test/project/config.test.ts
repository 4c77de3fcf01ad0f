// loadConfig: the defaults, what is derived from what, and that every bad variable is refused with
// a message naming it (at load time, not later when some part first uses it).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ConfigError, loadConfig, loadStdioConfig } from "../../src/config.ts";

const source = readFileSync(new URL("../../src/config.ts", import.meta.url), "utf8");
/** Variable names the module reads through one of its parsers, e.g. every `integer(env, "X", …)`. */
const readBy = (parser: string) => [...source.matchAll(new RegExp(`\\b${parser}\\(env, "([A-Z0-9_]+)"`, "g"))].map((m) => m[1]!);
/** The stdio MCP server's variables are read by loadStdioConfig, not by the service's loadConfig. */
const stdioSource = source.slice(source.indexOf("export function loadStdioConfig"));
const readByStdio = (name: string) => stdioSource.includes(`env, "${name}"`);

function refusal(env: Record<string, string>): string {
  try {
    const [name] = Object.keys(env);
    if (name && readByStdio(name)) loadStdioConfig({ AGENT_MAILBOX_KEY: "svc_test", ...env });
    else loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("defaults", () => {
  test("an empty environment gives the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databaseUrl: null,
      dataDir: "./.data",
      roles: ["api", "smtp", "worker"],
      host: "127.0.0.1",
      httpPort: 3000,
      smtpPort: 2525,
      publicBaseUrl: "http://localhost:3000",
      sharedDomain: "agents.localhost",
      mxHost: "mx.agents.localhost",
      logLevel: "info",
      maxRequestBytes: 1024 * 1024,
      dnsServers: [],
      trustedProxies: [], // X-Forwarded-For is believed from nobody
      freePlanMonthlyQuota: 3000,
      paidPlanMonthlyQuota: 100000,
    });
  });

  test("an empty string means the default", () => {
    expect(loadConfig({ HTTP_PORT: "", SHARED_DOMAIN: "", LOG_LEVEL: "", ROLES: "" })).toMatchObject({
      httpPort: 3000,
      sharedDomain: "agents.localhost",
      logLevel: "info",
      roles: ["api", "smtp", "worker"],
    });
  });

  test("loadConfig() with no argument reads process.env", () => {
    expect(loadConfig().databaseUrl).toBe(process.env.DATABASE_URL || null);
  });
});

describe("values and what is derived from them", () => {
  test("PUBLIC_BASE_URL follows HTTP_PORT unless set, and loses trailing slashes", () => {
    expect(loadConfig({ HTTP_PORT: "8080" }).publicBaseUrl).toBe("http://localhost:8080");
    expect(loadConfig({ PUBLIC_BASE_URL: "https://mail.example.com/" }).publicBaseUrl).toBe("https://mail.example.com");
  });

  test("MX_HOST follows SHARED_DOMAIN unless set; host names are lower-cased", () => {
    expect(loadConfig({ SHARED_DOMAIN: "Agents.Example.COM" })).toMatchObject({
      sharedDomain: "agents.example.com",
      mxHost: "mx.agents.example.com",
    });
    expect(loadConfig({ SHARED_DOMAIN: "a.example", MX_HOST: "inbound.a.example" }).mxHost).toBe("inbound.a.example");
  });

  test("ROLES is trimmed and de-duplicated; any subset is allowed", () => {
    expect(loadConfig({ ROLES: " api , worker,api " }).roles).toEqual(["api", "worker"]);
    expect(loadConfig({ ROLES: "smtp" }).roles).toEqual(["smtp"]);
  });

  test("DATABASE_URL accepts postgres:// and postgresql://", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://u@h:5432/d" }).databaseUrl).toBe("postgres://u@h:5432/d");
    expect(loadConfig({ DATABASE_URL: "postgresql://u@h/d" }).databaseUrl).toBe("postgresql://u@h/d");
  });

  test("TRUSTED_PROXIES is a comma-separated list of addresses and CIDR ranges, kept in canonical form", () => {
    expect(
      loadConfig({ TRUSTED_PROXIES: " 10.0.0.0/8 , 192.0.2.7,2001:DB8:0::/32, ::1, ::ffff:172.16.0.0/108,0.0.0.0/0" }).trustedProxies,
    ).toEqual(["10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32", "::1/128", "172.16.0.0/12", "0.0.0.0/0"]);
  });

  test("DNS_SERVERS is a comma-separated list", () => {
    expect(loadConfig({ DNS_SERVERS: "127.0.0.1:5300, [::1]:53,9.9.9.9" }).dnsServers).toEqual(["127.0.0.1:5300", "[::1]:53", "9.9.9.9"]);
  });

  test("integers at their bounds are accepted", () => {
    expect(loadConfig({ HTTP_PORT: "0", SMTP_PORT: "65535", MAX_REQUEST_BYTES: "1024" })).toMatchObject({
      httpPort: 0,
      smtpPort: 65535,
      maxRequestBytes: 1024,
    });
  });

  test("LOG_LEVEL takes each of its values", () => {
    for (const level of ["debug", "info", "warn", "error", "silent"])
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level as never);
  });
});

describe("bad variables fail naming the variable", () => {
  const cases: [string, string, RegExp][] = [
    ["ROLES", "api,web", /ROLES .*'web'/],
    ["ROLES", " , ", /ROLES must name at least one role/],
    ["HTTP_PORT", "http", /HTTP_PORT must be a whole number, got 'http'/],
    ["HTTP_PORT", "65536", /HTTP_PORT must be between 0 and 65535, got 65536/],
    ["HTTP_PORT", "-1", /HTTP_PORT/],
    ["HTTP_PORT", "80.5", /HTTP_PORT/],
    ["SMTP_PORT", "25x", /SMTP_PORT/],
    ["MAX_REQUEST_BYTES", "10", /MAX_REQUEST_BYTES must be between/],
    ["DATABASE_URL", "mysql://localhost/db", /DATABASE_URL must be a postgres:\/\/ URL/],
    ["PUBLIC_BASE_URL", "ftp://example.com", /PUBLIC_BASE_URL must be an http\(s\) URL/],
    ["PUBLIC_BASE_URL", "localhost:3000", /PUBLIC_BASE_URL/],
    ["SHARED_DOMAIN", "not a domain", /SHARED_DOMAIN must be a host name/],
    ["SHARED_DOMAIN", "-bad.example", /SHARED_DOMAIN/],
    ["MX_HOST", "mx_1.example", /MX_HOST/],
    ["DKIM_SELECTOR", "sel ector", /DKIM_SELECTOR/],
    ["LOG_LEVEL", "verbose", /LOG_LEVEL must be one of debug, info, warn, error, silent, got 'verbose'/],
    ["DELIVERY_TRANSPORT", "pigeon", /DELIVERY_TRANSPORT/],
    ["INBOUND_AUTH_MODE", "maybe", /INBOUND_AUTH_MODE/],
    ["TRUSTED_PROXIES", "proxy.internal", /TRUSTED_PROXIES entries must be IP addresses or CIDR ranges .*, got 'proxy.internal'/],
    ["TRUSTED_PROXIES", "10.0.0.1, *", /TRUSTED_PROXIES .*got '\*'/],
    ["TRUSTED_PROXIES", "10.0.0.0/33", /TRUSTED_PROXIES .*got '10.0.0.0\/33'/],
    ["TRUSTED_PROXIES", "fd00::/129", /TRUSTED_PROXIES .*got 'fd00::\/129'/],
    ["TRUSTED_PROXIES", "10.0.0.0/", /TRUSTED_PROXIES .*got '10.0.0.0\/'/],
    ["TRUSTED_PROXIES", "10.0.0.0/8/8", /TRUSTED_PROXIES/],
    ["TRUSTED_PROXIES", "fe80::1%eth0", /TRUSTED_PROXIES .*got 'fe80::1%eth0'/],
    [
      "TRUSTED_PROXIES",
      "10.0.0.1/8",
      /TRUSTED_PROXIES entries must be network addresses: '10.0.0.1\/8' has bits set after its prefix length/,
    ],
  ];
  for (const [name, value, message] of cases) {
    test(`${name}=${JSON.stringify(value)}`, () => {
      const text = refusal({ [name]: value });
      expect(text).toStartWith(`invalid configuration: ${name} `);
      expect(text).toMatch(message);
    });
  }

  test("DELIVERY_TRANSPORT=smtp without SMTP_RELAY_URL names SMTP_RELAY_URL", () => {
    expect(refusal({ DELIVERY_TRANSPORT: "smtp" })).toMatch(/SMTP_RELAY_URL is required when DELIVERY_TRANSPORT=smtp/);
  });

  test("every integer variable refuses a non-number and says which", () => {
    const names = readBy("integer");
    expect(names).toContain("HTTP_PORT");
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const name of names) {
      expect(refusal({ [name]: "lots" })).toStartWith(`invalid configuration: ${name} must be a whole number`);
      expect(refusal({ [name]: "99999999999" })).toStartWith(`invalid configuration: ${name} must be between`);
    }
  });

  test("every host-name and enumerated variable refuses garbage and says which", () => {
    const names = [...readBy("hostname"), ...readBy("oneOf"), ...readBy("url"), ...readBy("boolean")];
    expect(names).toEqual(expect.arrayContaining(["SHARED_DOMAIN", "LOG_LEVEL", "PUBLIC_BASE_URL"]));
    for (const name of names) expect(refusal({ [name]: "not valid at all!" })).toStartWith(`invalid configuration: ${name} `);
  });

  test("DNS_SERVERS with something that is not an IP address is refused at load, naming DNS_SERVERS", () => {
    // Otherwise the resolver throws later, at start-up after migrations, without naming the variable.
    expect(refusal({ DNS_SERVERS: "dns.example.com" })).toStartWith("invalid configuration: DNS_SERVERS ");
    expect(refusal({ DNS_SERVERS: "127.0.0.1:99999" })).toStartWith("invalid configuration: DNS_SERVERS ");
  });

  test("HOST that is neither an IP address nor a host name is refused, naming HOST", () => {
    expect(refusal({ HOST: "not a host!" })).toStartWith("invalid configuration: HOST ");
  });

  test("the service refuses to start on a bad variable: exit 1, the message on stderr, no stack", () => {
    const run = Bun.spawnSync([process.execPath, "src/main.ts"], {
      cwd: new URL("../..", import.meta.url).pathname,
      env: { PATH: process.env.PATH ?? "", HTTP_PORT: "eighty", DATABASE_URL: "postgres://127.0.0.1:1/none" },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 20000,
    });
    expect(run.exitCode).toBe(1);
    const stderr = run.stderr.toString();
    expect(stderr.trim()).toBe("invalid configuration: HTTP_PORT must be a whole number, got 'eighty'");
  });
});

describe("SPAM_SCANNER: which edge spam scanner, and refusals naming it", () => {
  const scanner = (env: Record<string, string>) => {
    const { spamScanner, spamdAddress, rspamdUrl } = loadConfig(env).screening;
    return { spamScanner, spamdAddress, rspamdUrl };
  };

  test("unset, it follows the address that is set; spamd first, so older deployments keep spamd", () => {
    expect(scanner({})).toEqual({ spamScanner: null, spamdAddress: null, rspamdUrl: null });
    expect(scanner({ SPAMD_ADDRESS: "127.0.0.1:783" }).spamScanner).toBe("spamd");
    expect(scanner({ RSPAMD_URL: "http://127.0.0.1:11333/" })).toEqual({
      spamScanner: "rspamd",
      spamdAddress: null,
      rspamdUrl: "http://127.0.0.1:11333",
    });
    expect(scanner({ SPAMD_ADDRESS: "127.0.0.1:783", RSPAMD_URL: "http://127.0.0.1:11333" }).spamScanner).toBe("spamd");
  });

  test("named, it wins over the default; none turns the edge scanner off with an address set", () => {
    const both = { SPAMD_ADDRESS: "127.0.0.1:783", RSPAMD_URL: "http://127.0.0.1:11333" };
    expect(scanner({ ...both, SPAM_SCANNER: "rspamd" }).spamScanner).toBe("rspamd");
    expect(scanner({ ...both, SPAM_SCANNER: "spamd" }).spamScanner).toBe("spamd");
    expect(scanner({ ...both, SPAM_SCANNER: "none" }).spamScanner).toBeNull();
  });

  test("a bad value, or a scanner without its address, is refused at load", () => {
    expect(refusal({ SPAM_SCANNER: "spamassassin" })).toBe(
      "invalid configuration: SPAM_SCANNER must be one of spamd, rspamd, none, got 'spamassassin'",
    );
    expect(refusal({ SPAM_SCANNER: "rspamd" })).toBe("invalid configuration: SPAM_SCANNER is rspamd but RSPAMD_URL is not set");
    expect(refusal({ SPAM_SCANNER: "spamd", RSPAMD_URL: "http://127.0.0.1:11333" })).toBe(
      "invalid configuration: SPAM_SCANNER is spamd but SPAMD_ADDRESS is not set",
    );
    expect(refusal({ RSPAMD_URL: "127.0.0.1:11333" })).toStartWith("invalid configuration: RSPAMD_URL must be an http(s) URL");
  });
});
