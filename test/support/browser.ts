// A real headless Chromium for the dashboard's browser tests: Debian's `chromium` package driven
// by npm `playwright-core` (which never downloads a browser of its own). Where Chromium is not
// installed the browser tests skip and say so on stderr; wherever CI is set they fail instead,
// so a missing browser can never hide them in CI.
import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserContext } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

const ci = process.env.CI;
/** Under CI a missing browser is a broken build, not a reason to skip. */
export const browserRequired = ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** Whether browser tests can run here; when not, says so on stderr (a skip is never silent). */
export function browserPresent(what: string): boolean {
  if (chromiumInstalled()) return true;
  console.warn(
    `SKIPPED: ${what}: ${CHROMIUM_PATH} not installed (Debian: apt-get install chromium)` +
      (browserRequired ? "; CI is set, so the availability test fails" : ""),
  );
  return false;
}

// Flags that let Chromium run headless as root in a container, offline and quiet.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export type HeadlessBrowser = { browser: Browser; context: BrowserContext; close(): Promise<void> };

export async function launchChromium(): Promise<HeadlessBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, headless: true, timeout: 60_000 });
  const context = await browser.newContext();
  return {
    browser,
    context,
    async close() {
      await context.close().catch(() => {});
      await browser.close().catch(() => {});
    },
  };
}
