#!/usr/bin/env node
// Committed launcher: npm links a bin at install time only if its file exists, and dist/ is built after install.
// The CLI runs from its bundle (scripts/bundle.mjs): one file to read, as in the installed package. CommonJS
// (bin/package.json): Node then starts without its ES module loader, which the CLI does not need.
'use strict';
require('../dist/bundle/svc.cjs');
