import { existsSync } from 'node:fs';

/**
 * Finds a Chromium for the end-to-end tests: $CHROMIUM_PATH, Debian's /usr/bin/chromium, or one
 * Playwright installed into its cache. Returns null when there is none.
 */
export async function findChromium() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  try {
    const { chromium } = await import('playwright');
    const cached = chromium.executablePath();
    if (cached && existsSync(cached)) return cached;
  } catch {
    // Playwright has no browser of its own here; fall through.
  }
  return null;
}

/**
 * How the tests and benchmarks start Chromium: without the sandbox a root user cannot have, without
 * a GPU, and without the background traffic a machine with no network would refuse.
 */
export const chromiumArguments = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const chromiumHelp = [
  'No Chromium was found for the end-to-end tests.',
  'Install one, then run the tests again:',
  '  Debian/Ubuntu:  sudo apt-get install -y chromium',
  '  any system:     npx playwright install chromium',
  '  or point CHROMIUM_PATH at a Chromium or Chrome binary.',
].join('\n');

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = await findChromium();
  if (!found) {
    console.error(chromiumHelp);
    process.exit(1);
  }
  console.log(found);
}
