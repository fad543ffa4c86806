'use strict';

// Opens licorice's HTML reports in headless Chromium, as a reader would,
// and checks what they see. The detect page is the golden file of
// `go test ./detect/htmlreport` (MyTracks, as `licorice demo` runs it);
// the races page is made here by the command, from a generated trace with
// over a hundred race groups.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium } = require('playwright-core');

const repo = path.resolve(__dirname, '..', '..', '..', '..');
const testdata = path.resolve(__dirname, '..', '..', 'testdata');
const detectPage = path.join(testdata, 'mytracks-detect.html');
const detectReport = JSON.parse(fs.readFileSync(path.join(testdata, 'mytracks-detect.json'), 'utf8'));
const executablePath = process.env.LICORICE_CHROMIUM || '/usr/bin/chromium';

// The flags a sandboxed machine without network needs (no background
// connections, no GPU, no setuid sandbox as root).
const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser;
let tmp;

// launch starts Chromium, trying again twice: on a fresh CI machine its
// first start has crashed (SIGSEGV within 50 ms, before any page), which
// says nothing about the reports under test. A browser that never starts
// fails the tests with the last error.
async function launch() {
  let last;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await chromium.launch({ executablePath, args });
    } catch (e) {
      last = e;
      console.error(`chromium did not start (attempt ${attempt} of 3): ${e.message.split('\n')[0]}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  throw last;
}

before(async () => {
  if (!fs.existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: install Debian's chromium (apt-get install chromium), or set LICORICE_CHROMIUM to a Chromium binary`);
  }
  browser = await launch();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'licorice-browser-'));
});

after(async () => {
  if (browser) {
    await browser.close();
  }
  if (tmp) {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

// open loads file in a new page and records what should not happen: a
// script error, a request that is not for the file itself.
async function open(file, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...options });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') { problems.push(`console error: ${m.text()}`); } });
  page.on('request', (r) => { if (!r.url().startsWith('file:')) { problems.push(`request: ${r.url()}`); } });
  await page.goto('file://' + file, { waitUntil: 'load' });
  return { page, context, problems };
}

test('every report group is listed, in rank order, with its handlers and condition', async () => {
  const { page, context, problems } = await open(detectPage);
  const rows = page.locator('tr.item');
  assert.ok(detectReport.reports.length > 0, 'the report has no group: the test checks nothing');
  assert.equal(await rows.count(), detectReport.reports.length);
  for (const [i, r] of detectReport.reports.entries()) {
    const row = rows.nth(i);
    assert.equal(await row.getAttribute('data-target'), `r${r.id}`);
    const text = await row.innerText();
    for (const h of r.handlers) {
      assert.ok(text.includes(h), `row ${i + 1} does not name handler ${h}: ${text}`);
    }
    assert.ok(text.includes(r.condition.text), `row ${i + 1} does not show ${r.condition.text}`);
    assert.ok(text.includes(String(r.findings)));
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('clicking a group shows its timeline with both events, on their threads', async () => {
  const { page, context, problems } = await open(detectPage);
  const last = detectReport.reports[detectReport.reports.length - 1];
  await page.locator(`tr.item[data-target="r${last.id}"]`).click();
  const detail = page.locator(`#r${last.id}`);
  assert.ok(await detail.isVisible(), 'the clicked group is not shown');
  for (const r of detectReport.reports) {
    if (r.id !== last.id) {
      assert.ok(!(await page.locator(`#r${r.id}`).isVisible()), `group ${r.id} is shown too`);
    }
  }
  assert.equal(await page.locator(`tr.item[data-target="r${last.id}"]`).getAttribute('aria-current'), 'true');

  const svg = detail.locator('figure.timeline svg');
  assert.ok(await svg.isVisible(), 'no timeline');
  const events = last.example.events;
  assert.equal(events.length, 2);
  const scroller = await detail.locator('.scroll').boundingBox();
  for (const [i, cls] of ['first', 'second'].entries()) {
    const box = svg.locator(`g.pair.${cls}`);
    assert.equal(await box.count(), 1, `no box for event ${i + 1}`);
    const title = await box.locator('title').textContent();
    assert.ok(title.startsWith(events[i].id + ' '), `box ${i + 1} is ${title}, want event ${events[i].id}`);
    assert.equal(await box.locator('text.mark').textContent(), String(i + 1));
    // On the lane of its thread.
    const laneY = await svg.locator('g.lane').evaluateAll((lanes, thread) => {
      const lane = lanes.find((l) => l.querySelector('title').textContent.split(' ')[1] === thread);
      return lane ? Number(lane.querySelector('line').getAttribute('y1')) : null;
    }, events[i].thread);
    assert.notEqual(laneY, null, `no lane for thread ${events[i].thread}`);
    const y = Number(await box.locator('rect').getAttribute('y'));
    assert.ok(y > laneY && y < laneY + 40, `box ${i + 1} at y ${y} is not on the lane of ${events[i].thread} (y ${laneY})`);
    const rect = await box.locator('rect').boundingBox();
    assert.ok(rect && rect.width > 0 && rect.height > 0, `box ${i + 1} is not drawn`);
    if (i === 0) {
      // Scrolled so that the first of the pair shows.
      assert.ok(rect.x >= scroller.x && rect.x + rect.width <= scroller.x + scroller.width,
        `the first event's box (x ${rect.x}) is outside the timeline's view (${scroller.x}–${scroller.x + scroller.width})`);
    }
  }
  const note = await detail.locator('figure.timeline .missing').textContent();
  assert.ok(await detail.locator('figure.timeline .missing').isVisible(), 'the missing order is not stated');
  assert.match(note, new RegExp(`No chain of arrows orders 1 \\(${events[0].id}\\) and 2 \\(${events[1].id}\\)`));
  assert.ok(await svg.locator('line.arrow').count() > 0, 'no arrow drawn');
  const why = await detail.locator('ul.why').innerText();
  assert.ok(why.includes(last.example.why_concurrent.text.slice(0, 40)), 'the explanation is missing');
  const shot = path.join(tmp, 'report.png');
  await page.screenshot({ path: shot, fullPage: false });
  assert.ok(fs.statSync(shot).size > 10000, 'the screenshot is empty');
  if (process.env.UPDATE_SCREENSHOT) {
    // The README's picture: the first group, a bit of the page.
    await page.locator('tr.item').first().click();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(repo, 'docs', 'img', 'mytracks-report.png'), clip: { x: 0, y: 0, width: 1400, height: 1000 } });
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('filter, sort and the keyboard', async () => {
  const { page, context, problems } = await open(detectPage);
  const rows = page.locator('tr.item');
  const n = await rows.count();
  const visible = () => page.locator('tr.item:not([hidden])').count();

  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'filter', '/ does not focus the filter');
  const handler = detectReport.reports[0].handlers[0];
  await page.keyboard.type(handler.split('.').pop());
  const matching = detectReport.reports.filter((r) => r.handlers.some((h) => h.includes(handler.split('.').pop())) ||
    r.condition.text.includes(handler.split('.').pop())).length;
  assert.equal(await visible(), matching);
  await page.keyboard.type(' no-such-thing');
  assert.equal(await visible(), 0);
  assert.match(await page.locator('#shown').textContent(), new RegExp(`^0 of ${n} shown`));
  await page.keyboard.press('Escape');
  assert.equal(await visible(), n);

  await page.selectOption('#sort', 'count');
  const counts = await rows.evaluateAll((rs) => rs.map((r) => Number(r.dataset.count)));
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a), 'not sorted by count');
  await page.selectOption('#sort', 'rank');
  const ranks = await rows.evaluateAll((rs) => rs.map((r) => Number(r.dataset.rank)));
  assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), 'not sorted by rank');

  if (n > 1) {
    await rows.first().focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await rows.nth(1).getAttribute('aria-current'), 'true', 'ArrowDown does not open the next group');
    assert.ok(await page.locator(`#${await rows.nth(1).getAttribute('data-target')}`).isVisible());
    await page.keyboard.press('ArrowUp');
    assert.equal(await rows.first().getAttribute('aria-current'), 'true');
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('dark mode, and print shows every group', async () => {
  const background = async (scheme) => {
    const { page, context } = await open(detectPage, { colorScheme: scheme });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await context.close();
    return bg;
  };
  const light = await background('light');
  const dark = await background('dark');
  assert.notEqual(light, dark, 'the same colours in dark mode');

  const { page, context } = await open(detectPage);
  await page.emulateMedia({ media: 'print' });
  const shown = await page.locator('article.detail').evaluateAll((ds) => ds.filter((d) => getComputedStyle(d).display !== 'none').length);
  assert.equal(shown, detectReport.reports.length, 'print leaves groups out');
  assert.equal(await page.locator('.controls').evaluate((c) => getComputedStyle(c).display), 'none');
  await context.close();
});

test('a page of over 100 groups renders in under a second', async (t) => {
  const bin = path.join(tmp, 'licorice');
  execFileSync('go', ['build', '-o', bin, './cmd/licorice'], { cwd: repo, stdio: 'inherit' });
  const trace = path.join(tmp, 'small.lct');
  const html = path.join(tmp, 'races.html');
  execFileSync(bin, ['traces', 'generate', '--shape', 'small', '--events', '180', '-o', trace]);
  execFileSync(bin, ['races', '--format', 'html', '--window', '0', '-o', html, trace]);
  const { page, context, problems } = await open(html);
  const groups = await page.locator('tr.item').count();
  assert.ok(groups >= 100, `only ${groups} groups: the test needs 100`);
  const ms = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return nav.loadEventEnd - nav.startTime;
  });
  t.diagnostic(`${groups} groups, ${fs.statSync(html).size} bytes: loaded in ${ms.toFixed(0)} ms`);
  assert.ok(ms < 1000, `${groups} groups took ${ms} ms to load`);
  assert.ok(await page.locator('article.detail.open figure.timeline').isVisible(), 'the first group is not shown');
  assert.deepEqual(problems, []);
  await context.close();
});
