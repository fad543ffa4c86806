'use strict';
// timeout.refresh() re-arms a pending timer: it fires after the timers
// of its duration that were set before the refresh.
setTimeout(function x1() {
  h.refresh();
}, 4);
const h = setTimeout(function xr() {}, 4);
setTimeout(function x2() {}, 4);
