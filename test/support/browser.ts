// A real headless Chromium for the dashboard's browser tests: Debian's `chromium` package driven
// by npm `playwright-core` (which never downloads a browser of its own). Whether the browser tests
// run or skip is test/support/system-tools.ts's call (needTools(..., ["chromium"])).
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { CHROMIUM_PATH } from "./system-tools.ts";

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
