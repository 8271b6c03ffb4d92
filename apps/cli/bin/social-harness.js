#!/usr/bin/env node
// The installed command: runs the compiled command line (`npm ci` builds it through `prepare`).
import "../dist/cli.js";
