'use strict';
let ready = false;
setTimeout(function never() { ready = true; }, 1);
throw new Error('boom at load');
