// The typed client's generated OpenAPI types are checked in: they must match what the routes
// generate now (`npm run client:generate` rewrites them). CI runs this with the rest of the suite.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { generateClientTypes, schemaPath } from "../../scripts/client-generate.ts";

test("src/client/schema.d.ts is what the routes generate (run `npm run client:generate` after changing a route)", async () => {
  expect(readFileSync(schemaPath, "utf8") === (await generateClientTypes())).toBe(true);
});
