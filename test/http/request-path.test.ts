// pathOf reads the path off a request's URL without parsing it: it must give exactly what
// `new URL(url).pathname` gives for every URL a Request can carry, odd ones included.
import { describe, expect, test } from "bun:test";
import { pathOf } from "../../src/http/request-path.ts";

const RAW = [
  "http://localhost/",
  "http://localhost",
  "http://127.0.0.1:8080/api/v1/mailboxes",
  "http://127.0.0.1:8080/api/v1/mailboxes?limit=5",
  "http://127.0.0.1:8080/api/v1/mailboxes?limit=5#frag",
  "http://127.0.0.1:8080/api/v1/mailboxes#a?b",
  "http://[::1]:3000/api/v1/messages/msg_a%00b?x=%00",
  "https://user:pa%2Fss@example.com:443//double//slashes/",
  "http://localhost/unsubscribe/tok%2Fen?x=/y",
  "http://localhost/a/../b/./c",
  "http://localhost/%E2%82%AC/%ff/%zz/%",
  "http://localhost/é/ü?é",
  "http://localhost/?",
  "http://localhost/api/v1/events/stream?after=1",
];

describe("pathOf", () => {
  test("equals new URL(url).pathname for the URL of every Request", () => {
    for (const raw of RAW) {
      const url = new Request(raw).url;
      expect({ url, path: pathOf(url) }).toEqual({ url, path: new URL(url).pathname });
    }
  });
});
