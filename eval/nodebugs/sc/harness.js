'use strict';
// SC: simplecrawler issue 298 (fixed by "Fixed a race condition in crawl loop").
//
//   node harness.js           simplecrawler 0.7.0 (buggy)
//   node harness.js --fixed   simplecrawler 1.0.0 (fixed)
//   node harness.js --interval 2   a shorter crawl interval: 0.7.0 fails nearly every run
//
// As in the report, the crawler runs with a short interval against a server
// that sends gzipped pages. simplecrawler 0.7.0 marks a page fetched and
// drops it from its open requests when the response ends, but unzips the
// body (and discovers its links, and emits "fetchcomplete") later, in
// zlib's callback. A crawl tick that fires in between finds no open
// request and no unfetched item, emits "complete" and stops: the links of
// that page are never crawled. 1.0.0 marks the page fetched and closes the
// request in zlib's callback, so a tick in between sees the request open.
//
// The site, on 127.0.0.1: / links to /a.html and /b.html, which link
// nowhere; every page is gzipped. A correct crawl fetches all three pages
// and then completes; the harness throws when "complete" comes early.
//
// Timing: the crawler fetches one page per tick (the first at start), the
// server answers after 5 ms, and zlib's callback comes a few ms after the
// response ends (5-10 ms under the recorder; the first response ends 20-45
// ms after start, depending on the machine's load). With ticks every 50 ms
// a run without delays passes, yet nothing orders the tick that completes
// the crawl against the last zlib callback; the shuffler's delays (on the
// server's 5 ms timer and on the 50 ms interval), or a loaded machine, can
// put a tick in the window, and 0.7.0 then completes early.

const http = require('http');
const zlib = require('zlib');

const fixed = process.argv.includes('--fixed');
const Crawler = require(fixed ? 'simplecrawler-fixed' : 'simplecrawler-buggy');

const arg = process.argv.indexOf('--interval');
const INTERVAL = arg > 0 ? Number(process.argv[arg + 1]) : 50; // ms between crawl ticks
const LATENCY = 5; // ms the server takes to answer

const site = {
  '/': '<html><body><a href="/a.html">a</a> <a href="/b.html">b</a></body></html>',
  '/a.html': '<html><body><p>a</p></body></html>',
  '/b.html': '<html><body><p>b</p></body></html>',
};
const gzipped = {};
for (const [p, body] of Object.entries(site)) gzipped[p] = zlib.gzipSync(body);

const server = http.createServer(function serve(req, res) {
  const body = gzipped[req.url];
  if (body === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  setTimeout(function respond() {
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': body.length });
    res.end(body);
  }, LATENCY);
});

const fetched = [];
let completed = false;

server.listen(0, '127.0.0.1', function listening() {
  const port = server.address().port;
  const crawler = fixed ? new Crawler('http://127.0.0.1:' + port + '/') : new Crawler('127.0.0.1', '/', port);
  crawler.interval = INTERVAL;
  crawler.maxConcurrency = 2;
  if (fixed) crawler.respectRobotsTxt = false;

  crawler.on('fetchcomplete', function onPage(queueItem) {
    if (completed) throw new Error('page ' + queueItem.path + ' fetched after the crawl completed');
    fetched.push(queueItem.path);
  });
  crawler.on('complete', function onComplete() {
    completed = true;
    server.close();
    if (fetched.length !== Object.keys(site).length) {
      throw new Error('crawl completed after ' + fetched.length + ' of ' + Object.keys(site).length + ' pages: ' + fetched.join(' '));
    }
  });
  crawler.start();
});
