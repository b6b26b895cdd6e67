// Headless Chromium opens the `phasewatch serve` URL and saves a PNG once the dashboard painted.
// Usage: node web_shot.cjs URL OUT.png   (playwright-core on NODE_PATH; Debian's /usr/bin/chromium)
const { chromium } = require("playwright-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

async function main(url, out) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "phasewatch-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 760 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    await page.goto(url, { waitUntil: "load" });
    // xterm.js paints on a canvas (no text in the DOM). Painted = the app's first bytes arrived
    // (textual-serve then hides its intro card) and the text layer stayed the same over three
    // polls a second apart, and not before 12 s (the start-up toasts are gone and the tables
    // have their final column widths); then the card's 0.3 s fade-out ends.
    await page.waitForFunction(() => {
      if (performance.now() < 12000) return false;
      const layer = document.querySelector("body.-first-byte canvas.xterm-text-layer");
      if (!layer) return false;
      const now = layer.toDataURL();
      window.__same = now === window.__lastPaint ? (window.__same || 0) + 1 : 0;
      window.__lastPaint = now;
      return window.__same >= 2;
    }, null, { polling: 1000, timeout: 60000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: out });
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main(process.argv[2], process.argv[3]).catch((err) => { console.error(err); process.exit(1); });
