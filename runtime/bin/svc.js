#!/usr/bin/env node
// Committed launcher: npm links a bin at install time only if its file exists, and dist/ is built after install.
// The CLI runs from its bundle (scripts/bundle.mjs): one file to read, as in the installed package.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('../dist/bundle/svc.cjs');
