/**
 * Headless Chromium for the browser tests, driven by playwright-core. The browser is the system's
 * (Debian's chromium package, which CI installs when missing), or $CHROMIUM_PATH. A missing
 * browser fails the test with a message saying how to get one: these tests never skip.
 */
import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Without the background-networking flags, Chromium opens connections of its own (updates, field
 * trials, sync) that a closed network refuses, and those failures can stall the page under test.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium is needed for the browser tests and was not found at ${path}: install Debian's chromium package ` +
        '(apt-get install chromium; .ci/run does so when it is missing) or set CHROMIUM_PATH to a Chromium or Chrome executable',
    );
  }
  return path;
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  try {
    return await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  } catch (error) {
    throw new Error(`could not start Chromium (${executablePath}): ${(error as Error).message}`, { cause: error });
  }
}
