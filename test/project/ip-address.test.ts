// The one place that says what an IP address is (src/ip-address.ts), used by webhooks, outbound
// MX delivery, the trusted-proxy setting and the sign-in throttle.
import { describe, expect, test } from "bun:test";
import { type AddressKind, classifyAddress, readHostAddress, refusalOf } from "../../src/ip-address.ts";

const kindOf = (text: string): AddressKind => classifyAddress(readHostAddress(text)!.address);

describe("classifyAddress", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.10", "private"],
    ["100.64.0.1", "private"],
    ["fc00::1", "unique_local"],
    ["fd12:3456::1", "unique_local"],
    ["169.254.0.1", "link_local"],
    ["169.254.10.20", "link_local"],
    ["fe80::1", "link_local"],
    ["febf::1", "link_local"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["169.254.170.2", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "multicast"],
    ["ff02::1", "multicast"],
    ["192.0.2.1", "reserved"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.9", "reserved"],
    ["240.0.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["2001::1", "reserved"],
    // IPv4 inside IPv6 is judged as the IPv4 address it carries.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::7f00:1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["2002:c0a8:0101::1", "private"],
    ["::ffff:93.184.216.34", "public"],
    ["93.184.216.34", "public"],
    ["8.8.8.8", "public"],
    ["172.15.255.255", "public"],
    ["172.32.0.1", "public"],
    ["100.128.0.1", "public"],
    ["2606:4700::1", "public"],
    ["2001:4860:4860::8888", "public"],
  ] as const)("%s is %s", (text, kind) => {
    expect(kindOf(text)).toBe(kind);
  });
});

describe("readHostAddress", () => {
  test.each([
    ["2130706433", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["2852039166", "169.254.169.254"],
  ])("the odd spelling %s is %s, and not canonical", (text, address) => {
    expect(readHostAddress(text)).toMatchObject({ canonical: false });
    expect(readHostAddress(text)!.address.toString()).toBe(address);
  });

  test("plain forms are canonical; brackets and a zone are dropped; names are not addresses", () => {
    expect(readHostAddress("127.0.0.1")).toMatchObject({ canonical: true });
    expect(readHostAddress("[::1]")!.address.toString()).toBe("::1");
    expect(readHostAddress("fe80::1%eth0")!.address.toString()).toBe("fe80::1");
    for (const name of ["example.com", "08.1.1.1", "256.1.1.1", "", "1.2.3.4.5"]) expect(readHostAddress(name)).toBeNull();
  });
});

describe("refusalOf", () => {
  test("public is never refused; everything else is refused unless allowed", () => {
    expect(refusalOf(readHostAddress("93.184.216.34")!.address, false)).toBeNull();
    for (const text of ["127.0.0.1", "10.0.0.1", "::1", "fd12::1", "169.254.169.254", "fe80::1", "0.0.0.0", "192.0.2.1"]) {
      expect(refusalOf(readHostAddress(text)!.address, false)).toBe(kindOf(text));
    }
  });

  test("allowing private networks opens loopback, private and unique-local only: link-local and metadata stay refused", () => {
    for (const text of ["127.0.0.1", "10.0.0.1", "192.168.0.1", "::1", "fd12::1", "::ffff:127.0.0.1"]) {
      expect(refusalOf(readHostAddress(text)!.address, true)).toBeNull();
    }
    expect(refusalOf(readHostAddress("169.254.169.254")!.address, true)).toBe("metadata");
    expect(refusalOf(readHostAddress("fd00:ec2::254")!.address, true)).toBe("metadata");
    expect(refusalOf(readHostAddress("169.254.1.1")!.address, true)).toBe("link_local");
    expect(refusalOf(readHostAddress("fe80::1")!.address, true)).toBe("link_local");
    expect(refusalOf(readHostAddress("::ffff:169.254.169.254")!.address, true)).toBe("metadata");
  });
});
