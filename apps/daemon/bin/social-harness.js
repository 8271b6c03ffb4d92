#!/usr/bin/env node
// The installed command: runs the compiled command line (build with `npm run build:node`).
import "../dist/cli.js";
