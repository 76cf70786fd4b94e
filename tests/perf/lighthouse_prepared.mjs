// Lighthouse on a page that needs a browser prepared first, for tests/perf/test_lighthouse.py.
//
// The lighthouse CLI opens a fresh tab, which suits public pages. Two pages need more:
// the Dashboard reads the member's session from the browser's cookies (document.cookie,
// which an extra request header does not fill), and Results shows the score that this
// very tab asked for (Reflex keys a tab's state by a token kept in sessionStorage). So
// this script does what the CLI does (Chrome started by chrome-launcher with the same
// flags, Lighthouse's default mobile settings) but prepares the tab before the audit:
// cookies set in the browser, or a photo uploaded and scored in the tab that is audited.
//
//     node lighthouse_prepared.mjs JOB.json
//
// JOB.json: {"lighthouseDir": ".tools/lighthouse", "chromePath": "/usr/bin/chromium",
//   "chromeFlags": ["--headless=new", ...], "url": "http://localhost:PORT/results",
//   "onlyCategories": ["performance", "accessibility"], "output": "report.json",
//   "cookies": [{"name": "...", "value": "..."}],        (optional)
//   "score": {"uploadUrl": ".../upload", "photo": "/path/photo.jpg"}}   (optional)
// Writes the JSON report to "output"; exits non-zero with a message when it cannot.
import {readFile, writeFile} from 'node:fs/promises';
import {createRequire} from 'node:module';
import {join, resolve} from 'node:path';
import {pathToFileURL} from 'node:url';

const STEP_TIMEOUT_MS = 60_000;

async function load(lighthouseDir, name) {
  const require = createRequire(join(resolve(lighthouseDir), 'package.json'));
  return import(pathToFileURL(require.resolve(name)).href);
}

function buttonReady(label) {
  return [...document.querySelectorAll('button')].some(
    (button) => button.textContent.includes(label) && !button.disabled,
  );
}

function clickButton(label) {
  [...document.querySelectorAll('button')].find((b) => b.textContent.includes(label)).click();
}

/** As a visitor: open /upload, choose the photo, 'Get My Score!', wait for the results. */
async function scorePhoto(page, {uploadUrl, photo}) {
  await page.goto(uploadUrl, {waitUntil: 'load'});
  await page.waitForSelector('[data-testid="page-ready"]');
  const input = await page.waitForSelector('[data-testid="upload-zone"] input[type=file]');
  await input.uploadFile(photo);
  await page.waitForSelector('img[alt="Your chosen photo"]', {visible: true});
  await page.waitForFunction(buttonReady, {}, 'Get My Score!');
  await page.evaluate(clickButton, 'Get My Score!');
  await page.waitForSelector('[data-testid="results"]', {visible: true});
}

async function main() {
  const job = JSON.parse(await readFile(process.argv[2], 'utf8'));
  const {default: lighthouse} = await load(job.lighthouseDir, 'lighthouse');
  const chromeLauncher = await load(job.lighthouseDir, 'chrome-launcher');
  const {default: puppeteer} = await load(job.lighthouseDir, 'puppeteer-core');

  const chrome = await chromeLauncher.launch({
    chromePath: job.chromePath,
    chromeFlags: job.chromeFlags,
    logLevel: 'error',
  });
  let browser;
  try {
    browser = await puppeteer.connect({
      browserURL: `http://127.0.0.1:${chrome.port}`,
      defaultViewport: null,
    });
    const page = await browser.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    if (job.cookies?.length) {
      const {hostname} = new URL(job.url);
      await browser.setCookie(...job.cookies.map((c) => ({...c, domain: hostname, path: '/'})));
    }
    if (job.score) await scorePhoto(page, job.score);
    const result = await lighthouse(
      job.url,
      {output: 'json', logLevel: 'error', onlyCategories: job.onlyCategories},
      undefined,
      page,
    );
    if (!result) throw new Error('Lighthouse returned no result');
    await writeFile(job.output, result.report);
  } finally {
    await browser?.disconnect();
    chrome.kill();
  }
}

main().catch((error) => {
  console.error(error?.stack || String(error));
  process.exit(1);
});
