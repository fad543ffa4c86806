'use strict';
// AKA: agentkeepalive issue 23 (fix PR 24, released as 2.0.2).
//
//   node harness.js           agentkeepalive 2.0.0 (buggy; 2.0.1 is not on npm)
//   node harness.js --fixed   agentkeepalive 2.0.2
//
// A keep-alive agent with a short free-socket timeout (keepAliveTimeout)
// sends a chain of GET requests to a local server, each one IDLE ms after
// the previous response ended: exactly when the free socket's idle timer
// is due. The request's timer is set before the socket's idle timer (the
// agent arms it on 'free', a tick after the response's 'end'), with the
// same duration, so it normally fires first and reuses the socket. When
// the request fires later (the schedule moved it), it fires either after
// the socket's 'close' (a new socket is made: fine) or between the idle
// timer's onTimeout, which destroys the socket, and its 'close' (a later
// phase of the same loop turn). Then agentkeepalive 2.0.0 hands it the
// destroyed socket, still in its free list, and the request fails with
// "socket hang up" (ECONNRESET): the harness throws. 2.0.2 removes the
// socket from the free list in onTimeout.
//
// The server listens on 127.0.0.1:9499 (AKA_PORT to change it), as in the
// report: the agent keys its socket lists by "host:port:", and a fixed
// port keeps those keys the same in every run. Runs recorded at the same
// time wait for each other's server to close.

const http = require('http');

const fixed = process.argv.includes('--fixed');
const Agent = require(fixed ? 'agentkeepalive-fixed' : 'agentkeepalive-buggy');

const IDLE = 20; // ms: the free-socket timeout, and the delay before each next request
const REQUESTS = 4;
const PORT = Number(process.env.AKA_PORT) || 9499;

// timeout is the working socket's timeout (2 * keepAliveTimeout by default):
// long, so that a slow recorded run does not time out a request in flight.
const agent = new Agent({ keepAliveTimeout: IDLE, timeout: 5000 });
const server = http.createServer(function onRequest(req, res) {
  res.end('ok ' + req.url);
});

function get(n, done) {
  const req = http.get({ host: '127.0.0.1', port: PORT, path: '/' + n, agent }, function onResponse(res) {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', function onData(chunk) {
      body += chunk;
    });
    res.on('end', function onEnd() {
      if (body !== 'ok /' + n) throw new Error('request ' + n + ': unexpected body ' + JSON.stringify(body));
      done();
    });
  });
  req.on('error', function onRequestError(err) {
    // The bug: the request was given a socket that onTimeout had destroyed.
    throw new Error('request ' + n + ' failed: ' + err.message + (err.code ? ' (' + err.code + ')' : ''));
  });
}

let sent = 0;
function sendRequest() {
  sent++;
  get(sent, function afterResponse() {
    if (sent < REQUESTS) {
      setTimeout(sendRequest, IDLE);
      return;
    }
    server.close();
    agent.destroy();
  });
}

// Runs recorded side by side take turns on the port.
let tries = 0;
server.on('error', function onServerError(err) {
  if (err.code !== 'EADDRINUSE' || ++tries > 400) throw err;
  setTimeout(listen, 5);
});
function listen() {
  server.listen(PORT, '127.0.0.1');
}
server.on('listening', sendRequest);
listen();
