// What core functions need from the outside, built once per process in src/main.ts (or per test).
import type { Config } from "../config.ts";
import type { Sql } from "../db.ts";
import type { Logger } from "../log.ts";
import type { ResolveFn } from "../mail/resolver.ts";

export type { ResolveFn };


export type Services = {
  sql: Sql;
  config: Config;
  log: Logger;
  resolve: ResolveFn;
};
