// Dashboard users: the humans who run an account's control plane.
import type { Db } from "../../db.ts";
import { errors } from "../errors.ts";
import { newId } from "../ids.ts";
import { hashPassword } from "./passwords.ts";

export async function createUser(
  sql: Db,
  input: { accountId: string; email: string; password: string },
): Promise<{ id: string; email: string }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw errors.validation("email is not an email address");
  if (input.password.length < 12) throw errors.validation("password must be at least 12 characters");
  const [account] = await sql`select 1 from accounts where id = ${input.accountId}`;
  if (!account) throw errors.notFound("account");
  const id = newId("usr");
  const rows = await sql`
    insert into dashboard_users (id, account_id, email, password_hash)
    values (${id}, ${input.accountId}, ${email}, ${await hashPassword(input.password)})
    on conflict (email) do nothing returning id`;
  if (rows.length === 0) throw errors.conflict("a user with this email already exists");
  return { id, email };
}
