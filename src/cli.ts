#!/usr/bin/env node
/** avahealth's entry point; the CLI itself is cli/main.ts. */
import './cli/main.js';
