#!/usr/bin/env node
// Committed launcher: npm links a bin at install time only if its file exists, and dist/ is built after install.
// svcd runs from its bundle (runtime/scripts/bundle.mjs): one file to load instead of hundreds.
import '../dist/bundle/main.js';
