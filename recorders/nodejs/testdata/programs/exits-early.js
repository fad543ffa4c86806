'use strict';
setTimeout(function late() {}, 1000);
setTimeout(function quit() { process.exit(3); }, 1);
