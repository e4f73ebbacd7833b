/**
 * A real headless Chromium for the tracker tests: Debian's `chromium` package (make test installs it when
 * missing), driven by playwright-core. Never a browser download. Each launch gets a fresh profile unless a
 * test reuses one to play a returning visitor.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox', // tests run as root
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  /** The profile (cookies, localStorage); pass it to launchBrowser again to come back as the same visitor. */
  profile: string;
  /** Closes the browser; the profile stays for a later launch until removeProfile. */
  close(): Promise<void>;
}

export async function launchBrowser(profile?: string): Promise<TestBrowser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run make deps-browser (apt-get install chromium)`);
  const dir = profile ?? fs.mkdtempSync(path.join(os.tmpdir(), 'oa-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    timeout: 60_000,
  });
  return { context, profile: dir, close: () => context.close() };
}

export function removeProfile(profile: string): void {
  fs.rmSync(profile, { recursive: true, force: true });
}
