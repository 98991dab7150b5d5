import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

// Issue 19: the Grafana dashboard in deploy/grafana is built on the names Spoor's /metrics really
// exports — every metric and every label value its queries select exists in a running process'
// /metrics (the embedded all-in-one process: every service, so every counter).

const DASHBOARD = 'deploy/grafana/spoor-dashboard.json';

interface Series {
  name: string;
  labels: Record<string, string>;
}

/** The series of a Prometheus text exposition. */
export function parseExposition(text: string): Series[] {
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? /.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    series.push({ name: m[1]!, labels });
  }
  return series;
}

interface Selector {
  metric: string;
  matchers: Array<{ label: string; op: string; value: string }>;
}

/**
 * The metric selectors of a PromQL expression: identifiers not followed by `(` (functions and
 * aggregations are), with their label matchers; grouping clauses and range durations removed.
 */
export function selectorsOf(expr: string): Selector[] {
  const cleaned = expr
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  const selectors: Selector[] = [];
  for (const m of cleaned.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g)) {
    if (m[3] || ['bool', 'offset'].includes(m[1]!)) continue;
    const matchers = [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map((x) => ({
      label: x[1]!,
      op: x[2]!,
      value: x[3]!,
    }));
    selectors.push({ metric: m[1]!, matchers });
  }
  return selectors;
}

/** What a selector asks for that no series has (positive matchers only; template variables skipped). */
export function unmatched(selector: Selector, series: Series[]): string[] {
  const ofMetric = series.filter((s) => s.name === selector.metric);
  if (ofMetric.length === 0) return [`${selector.metric}: no such metric`];
  const missing: string[] = [];
  for (const { label, op, value } of selector.matchers) {
    if (value.includes('$')) continue;
    const wanted = op === '=' ? [value] : op === '=~' && /^[\w|]+$/.test(value) ? value.split('|') : [];
    for (const v of wanted) {
      if (!ofMetric.some((s) => s.labels[label] === v))
        missing.push(`${selector.metric}{${label}="${v}"}: no such series`);
    }
  }
  return missing;
}

describe('deploy/grafana dashboard', function () {
  this.timeout(60_000);
  let spoor: Harness | null = null;
  let series: Series[];
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
  };
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

  before(async () => {
    spoor = await startSpoor('embedded');
    series = parseExposition(await (await fetch(`${spoor!.url}/metrics`)).text());
  });
  after(async () => spoor?.stop());

  it('reads selectors out of PromQL, and would notice a metric or label value that does not exist', () => {
    expect(
      selectorsOf('sum by (counter) (rate(spoor_service_counter{service="ingest",counter=~"a|b"}[5m]))'),
    ).to.deep.equal([
      {
        metric: 'spoor_service_counter',
        matchers: [
          { label: 'service', op: '=', value: 'ingest' },
          { label: 'counter', op: '=~', value: 'a|b' },
        ],
      },
    ]);
    expect(unmatched({ metric: 'spoor_events_total', matchers: [] }, series)).to.deep.equal([
      'spoor_events_total: no such metric',
    ]);
    expect(
      unmatched(selectorsOf('spoor_service_counter{service="ingest",counter=~"accepted|acepted"}')[0]!, series),
    ).to.deep.equal(['spoor_service_counter{counter="acepted"}: no such series']);
  });

  it('queries only metrics and label values that a running process exports', () => {
    expect(exprs.length).to.be.greaterThan(5);
    const problems = exprs.flatMap(({ panel, expr }) => {
      const selectors = selectorsOf(expr);
      if (selectors.length === 0) return [`${panel}: no metric in ${expr}`];
      return selectors.flatMap((s) => unmatched(s, series)).map((p) => `${panel}: ${p}`);
    });
    expect(problems).to.deep.equal([]);
  });

  it('shows the consumer lag under the name the autoscaling examples use', () => {
    expect(
      series.some(
        (s) =>
          s.name === 'kafka_consumergroup_lag' &&
          s.labels['consumergroup'] !== undefined &&
          s.labels['topic'] !== undefined,
      ),
    ).to.equal(true);
    expect(
      exprs.some(({ expr }) =>
        selectorsOf(expr).some((s) => s.metric === 'spoor_consumer_lag' || s.metric === 'kafka_consumergroup_lag'),
      ),
    ).to.equal(true);
  });
});
