#!/usr/bin/env node
// The server's build where the package is installed, its source in this repository: package.json
// "imports" picks by condition, so the same bin serves both.
import '#main';
