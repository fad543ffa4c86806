'use strict';
async function fail() {
  await null;
  throw new TypeError('no value');
}
fail();
