#!/usr/bin/env node
// Committed launcher: npm links a bin at install time only if its file exists, and dist/ is built after install.
import '../dist/src/cli/main.js';
