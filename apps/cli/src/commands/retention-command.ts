// Retention (issue 18): `spoor retention`, the cohort triangle of GET /v1/retention.
import { Option, type Command } from 'commander';
import { unwrap } from '../api-result.js';
import { retentionReport } from '../analytics-report.js';
import { act, type SessionFactory } from '../command-action.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

interface RetentionOptions extends WindowOptions {
  period: 'day' | 'week';
  action?: string;
}

export function registerRetentionCommand(program: Command, make: SessionFactory): void {
  withWindow(
    program
      .command('retention')
      .description('visitors by the day or week they were first seen, and the share that came back in each later one')
      .addOption(
        new Option('--period <period>', 'cohorts by UTC day or ISO week').choices(['day', 'week']).default('day'),
      )
      .option('--action <action>', 'a visitor is back with an event of this action (default: any event)'),
  ).action(
    act(make, async (s, o: RetentionOptions) => {
      const query = {
        ...(await s.scope()),
        ...windowQuery(o),
        period: o.period,
        ...(o.action ? { action: o.action } : {}),
      };
      const result = unwrap(await (await s.client()).GET('/v1/retention', { params: { query } }));
      s.out.result(result, () => retentionReport(s.out, result));
    }),
  );
}
