// Funnels (issue 18): `spoor funnel` runs one from steps on the command line or in a file;
// list, save, show, result and delete work on saved funnels (docs/analytics.md).
import { Option, type Command } from 'commander';
import type { components } from '@spoor/client';
import { unwrap } from '../api-result.js';
import { funnelReport, shortDuration } from '../analytics-report.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';
import { parseDuration } from '../duration-argument.js';
import { BREAKDOWNS, funnelBody, ORDERS, UNITS, type StepOptions } from '../funnel-definition.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

type SavedFunnel = components['schemas']['SavedFunnel'];

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The options that say what a funnel counts; shared by running one and saving one. */
function withFunnelOptions(command: Command): Command {
  return command
    .option(
      '--step <step>',
      'a step, repeated in order: an action (pageview), an action with payload values (click:{"button":"buy"}), or a JSONLogic rule ({"==":[{"var":"path"},"/pricing"]})',
      collect,
    )
    .option(
      '--steps-file <file>',
      'the steps in a YAML or JSON file: a list of steps, or a mapping with steps: (and unit, order, conversion_window_ms, breakdown)',
    )
    .addOption(new Option('--unit <unit>', 'count sessions or visitors (default session)').choices(UNITS))
    .addOption(
      new Option(
        '--order <order>',
        'strict: each step after the one before; any: all steps in any order (default strict)',
      ).choices(ORDERS),
    )
    .option('--conversion-window <duration>', 'the last step at most this long after the first (default 1d)', (v) =>
      parseDuration(v),
    )
    .addOption(
      new Option('--breakdown <property>', "also count per value of the unit's first event").choices(BREAKDOWNS),
    );
}

const savedColumns = () => [
  ...fields<SavedFunnel>('funnel_id', 'name'),
  {
    header: 'steps',
    value: (f: SavedFunnel) => f.steps.map((s, i) => s.name ?? s.action ?? `Step ${i + 1}`).join(' > '),
  },
  ...fields<SavedFunnel>('unit', 'order'),
  { header: 'window', value: (f: SavedFunnel) => shortDuration(f.conversion_window_ms) },
  ...fields<SavedFunnel>('breakdown', 'created_at'),
];

export function registerFunnelCommands(program: Command, make: SessionFactory): void {
  const funnel = program
    .command('funnel')
    .description('funnels: run one from steps (the default), or list, save, show, run and delete saved ones');
  withWindow(
    withFunnelOptions(
      funnel
        .command('run', { isDefault: true })
        .description('count how many sessions or visitors go through the steps, and how fast'),
    ),
  ).action(
    act(make, async (s, o: StepOptions & WindowOptions) => {
      const body = { ...(await s.scope()), ...windowQuery(o), ...(await funnelBody(o)) };
      const result = unwrap(await (await s.client()).POST('/v1/funnels/query', { body }));
      s.out.result(result, () => funnelReport(s.out, result));
    }),
  );
  funnel
    .command('list')
    .description('the saved funnels, newest first')
    .option('--limit <n>', 'how many (1-1000)', intOption('--limit'), 100)
    .action(
      act(make, async (s, o: { limit: number }) => {
        const data = unwrap(
          await (await s.client()).GET('/v1/funnels', { params: { query: { ...(await s.scope()), limit: o.limit } } }),
        );
        s.out.result(data, () => s.out.table(data.funnels, savedColumns()));
      }),
    );
  withFunnelOptions(funnel.command('save').description('save a funnel under a name').argument('<name>')).action(
    act(make, async (s, name: string, o: StepOptions) => {
      const saved = unwrap(
        await (
          await s.client()
        ).POST('/v1/funnels', { body: { ...(await s.scope()), name, ...(await funnelBody(o)) } }),
      );
      s.out.result(saved, () => `saved ${saved.name} as ${saved.funnel_id}`);
    }),
  );
  funnel
    .command('show')
    .description("a saved funnel's definition")
    .argument('<funnel_id>')
    .action(
      act(make, async (s, id: string) => {
        const saved = unwrap(
          await (
            await s.client()
          ).GET('/v1/funnels/{funnel_id}', { params: { path: { funnel_id: id }, query: await s.scope() } }),
        );
        s.out.result(saved, () => s.out.record(saved as unknown as Record<string, unknown>));
      }),
    );
  withWindow(
    funnel
      .command('result')
      .description('run a saved funnel over a window (default: the last 7 days)')
      .argument('<funnel_id>'),
  ).action(
    act(make, async (s, id: string, o: WindowOptions) => {
      const result = unwrap(
        await (
          await s.client()
        ).GET('/v1/funnels/{funnel_id}/result', {
          params: { path: { funnel_id: id }, query: { ...(await s.scope()), ...windowQuery(o) } },
        }),
      );
      s.out.result(result, () => funnelReport(s.out, result));
    }),
  );
  funnel
    .command('delete')
    .description('delete a saved funnel')
    .argument('<funnel_id>')
    .action(
      act(make, async (s, id: string) => {
        const gone = unwrap(
          await (
            await s.client()
          ).DELETE('/v1/funnels/{funnel_id}', { params: { path: { funnel_id: id }, query: await s.scope() } }),
        );
        s.out.result(gone, () => `deleted ${gone.name} (${gone.funnel_id})`);
      }),
    );
}
