#!/usr/bin/env node
// Committed launcher: npm links a bin at install time only if its file exists, and dist/ is built after install.
// svcd runs from its bundle, compiled with the code cache the build made (src/launcher/svcd-bundle.cts).
// CommonJS (bin/package.json): Node then starts without its ES module loader, which svcd does not need.
'use strict';
const { compileSvcdBundle, runSvcdBundle } = require('../dist/src/launcher/svcd-bundle.cjs');

runSvcdBundle(compileSvcdBundle());
