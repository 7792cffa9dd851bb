#!/usr/bin/env node
// The package's command: `bin` in package.json points at its build, dist/bin/tms-sync.js.
import '../src/cli/main.js';
