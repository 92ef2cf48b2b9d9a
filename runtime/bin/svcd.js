#!/usr/bin/env node
// Committed launcher: npm links a bin at install time only if its file exists, and dist/ is built after install.
// svcd runs from its bundle, compiled with the code cache the build made (src/bundle/svcd-bundle.ts).
import { compileSvcdBundle, runSvcdBundle } from '../dist/src/launcher/svcd-bundle.js';

runSvcdBundle(compileSvcdBundle());
