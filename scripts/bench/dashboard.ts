/**
 * `npm run bench -- dashboard`: how soon the dashboard paints the overview's figures in Chromium (the Debian
 * package, as the browser tests drive it), over a demo store loaded through the API and the pipeline. Each load
 * is a reload of a signed-in page; the time is the browser's own clock (`performance.now()`, from the start of
 * the navigation) when the first figure is in the page, and its first contentful paint.
 */
import { launchBrowser, removeProfile } from '../../test/support/browser';
import { planDemo } from '../demo/generate';
import { pushDemo } from '../demo/push';
import { percentile, startBenchEnv, waitForCommitted } from './bench-env';

export interface DashboardBenchOptions {
  events: number;
  loads: number;
}

const FIGURE = '[data-testid="kpi-conversion_value"] .kpi-value';

export async function benchDashboard(opts: DashboardBenchOptions): Promise<void> {
  const env = await startBenchEnv();
  const browser = await launchBrowser();
  try {
    const demo = planDemo({ events: opts.events, seed: 15, start: new Date(Date.now() - 29 * 86_400_000), days: 30 });
    await pushDemo({ apiUrl: env.apiUrl, ingestKey: env.credentials.ingest_key, stream: demo, concurrency: 4 });
    await waitForCommitted(env, demo.summary.events);

    const page = await browser.context.newPage();
    await page.goto(`${env.apiUrl}/dashboard`);
    await page.fill('input[name="key"]', env.credentials.dashboard_key);
    await page.click('button[type="submit"]');
    await page.waitForSelector(FIGURE);

    const figures: number[] = [];
    const contentful: number[] = [];
    for (let i = 0; i < opts.loads; i++) {
      await page.reload();
      await page.waitForFunction((sel) => document.querySelector(sel) !== null, FIGURE, { polling: 'raf' });
      figures.push(await page.evaluate(() => performance.now()));
      const fcp = await page.evaluate(
        () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
      );
      if (fcp !== null) contentful.push(fcp);
    }
    const summary = (ms: number[]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return { p50: Math.round(percentile(sorted, 50)), max: Math.round(sorted[sorted.length - 1] ?? NaN) };
    };
    console.log(
      JSON.stringify(
        {
          bench: 'dashboard',
          events: opts.events,
          loads: opts.loads,
          overview_figures_ms: summary(figures),
          first_contentful_paint_ms: summary(contentful),
        },
        null,
        2,
      ),
    );
  } finally {
    await browser.close();
    removeProfile(browser.profile);
    await env.close();
  }
}
