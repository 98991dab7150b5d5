import type { Command } from 'commander';
import type { components, SpoorClient } from '@spoor/client';
import { unwrap } from '../api-result.js';
import { UsageError } from '../cli-errors.js';
import { act, commaList, type SessionFactory } from '../command-action.js';
import { fields, type Column } from '../cli-output.js';
import type { CliSession } from '../cli-session.js';
import { parseDuration } from '../duration-argument.js';

type S = components['schemas'];
type Plural = 'channels' | 'webhooks' | 'schedules' | 'alerts';

/**
 * list, get and delete are the same for every configuration resource. The typed client wants a
 * literal path; these paths differ only in the plural, so one of them stands for all in the
 * type, and the server's answer is printed as it comes.
 */
function listGetDelete(
  group: Command,
  make: SessionFactory,
  plural: Plural,
  idName: string,
  columns: Array<Column<Record<string, unknown>>>,
): void {
  const listPath = `/v1/${plural}` as '/v1/channels';
  const onePath = `/v1/${plural}/{${idName}}` as '/v1/channels/{channel_id}';
  const path = (id: string) => ({ [idName]: id }) as { channel_id: string };
  group
    .command('list', { isDefault: true })
    .description(`the project's ${plural}`)
    .action(
      act(make, async (s) => {
        const data = unwrap(
          await (await s.client()).GET(listPath, { params: { query: await s.scope() } }),
        ) as unknown as Record<string, Array<Record<string, unknown>>>;
        s.out.result(data, () => s.out.table(data[plural]!, columns));
      }),
    );
  group
    .command('get')
    .description(`one of the project's ${plural}`)
    .argument(`<${idName}>`)
    .action(
      act(make, async (s, id: string) => {
        const item = unwrap(
          await (await s.client()).GET(onePath, { params: { path: path(id), query: await s.scope() } }),
        ) as unknown as Record<string, unknown>;
        s.out.result(item, () => s.out.record(item));
      }),
    );
  group
    .command('delete')
    .description(`delete one of the project's ${plural}`)
    .argument(`<${idName}>`)
    .action(
      act(make, async (s, id: string) => {
        const item = unwrap(
          await (await s.client()).DELETE(onePath, { params: { path: path(id), query: await s.scope() } }),
        );
        s.out.result(item, () => `deleted ${id}`);
      }),
    );
}

async function created<T>(
  s: CliSession,
  post: (
    c: SpoorClient,
    scope: { origin: string; project: string },
  ) => Promise<{ data?: T; error?: unknown; response: Response }>,
  human: (t: T) => string,
): Promise<void> {
  const item = unwrap(await post(await s.client(), await s.scope()));
  s.out.result(item, () => human(item));
}

function webhooks(program: Command, make: SessionFactory): void {
  const g = program
    .command('webhooks')
    .description('signed webhooks (Standard Webhooks) for rule.matched, threshold.crossed, digest.created');
  listGetDelete(
    g,
    make,
    'webhooks',
    'webhook_id',
    fields('webhook_id', 'url', 'events', 'enabled', 'disabled_reason', 'created_at'),
  );
  g.command('add')
    .description('add an endpoint; its signing secret is shown this once')
    .argument('<url>')
    .requiredOption('--events <types>', 'comma-separated: rule.matched, threshold.crossed, digest.created')
    .option('--description <text>')
    .action(
      act(make, async (s, url: string, o: { events: string; description?: string }) =>
        created(
          s,
          (c, scope) =>
            c.POST('/v1/webhooks', {
              body: {
                ...scope,
                url,
                events: commaList(o.events) as S['CreateWebhookRequest']['events'],
                ...(o.description ? { description: o.description } : {}),
              },
            }),
          (w) => `added webhook ${w.webhook_id} → ${w.url}\nsigning secret, shown this once:\n${w.secret}`,
        ),
      ),
    );
  g.command('enable')
    .description('enable an endpoint again after it was disabled')
    .argument('<webhook_id>')
    .action(
      act(make, async (s, id: string) => {
        const w = unwrap(
          await (
            await s.client()
          ).POST('/v1/webhooks/{webhook_id}/enable', { params: { path: { webhook_id: id } }, body: await s.scope() }),
        );
        s.out.result(w, () => `enabled ${w.webhook_id}`);
      }),
    );
  g.command('deliveries')
    .description("a webhook's delivery log, newest first")
    .argument('<webhook_id>')
    .action(
      act(make, async (s, id: string) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/webhooks/{webhook_id}/deliveries', {
            params: { path: { webhook_id: id }, query: await s.scope() },
          }),
        );
        s.out.result(data, () =>
          s.out.table(
            data.deliveries,
            fields<S['WebhookDelivery']>(
              'delivery_id',
              'event_type',
              'status',
              'attempts',
              'response_status',
              'error',
              'created_at',
              'next_attempt_at',
            ),
          ),
        );
      }),
    );
}

function channels(program: Command, make: SessionFactory): void {
  const g = program.command('channels').description('where digests and alerts go: email, Slack, Discord, Mattermost');
  listGetDelete(
    g,
    make,
    'channels',
    'channel_id',
    fields('channel_id', 'name', 'kind', 'recipients', 'url', 'created_at'),
  );
  g.command('add')
    .description('add a channel')
    .argument('<name>')
    .requiredOption('--kind <kind>', 'email, slack, discord or mattermost')
    .option('--recipients <emails>', 'email: comma-separated addresses')
    .option('--url <url>', 'chat: the incoming-webhook URL')
    .action(
      act(make, async (s, name: string, o: { kind: string; recipients?: string; url?: string }) => {
        if (!['email', 'slack', 'discord', 'mattermost'].includes(o.kind))
          throw new UsageError('--kind is email, slack, discord or mattermost');
        await created(
          s,
          (c, scope) =>
            c.POST('/v1/channels', {
              body: {
                ...scope,
                name,
                kind: o.kind as S['CreateChannelRequest']['kind'],
                ...(o.recipients ? { recipients: commaList(o.recipients) } : {}),
                ...(o.url ? { url: o.url } : {}),
              },
            }),
          (ch) => `added ${ch.kind} channel ${ch.channel_id} (${ch.name})`,
        );
      }),
    );
}

function schedules(program: Command, make: SessionFactory): void {
  const g = program.command('schedules').description('aggregation, digests and transitions at an interval');
  listGetDelete(
    g,
    make,
    'schedules',
    'schedule_id',
    fields('schedule_id', 'kind', 'interval_ms', 'enabled', 'next_run_at', 'last_run_at'),
  );
  g.command('add')
    .description('run a job every interval, for the interval that just ended')
    .argument('<kind>', 'aggregation, notification or transitions')
    .requiredOption('--every <duration>', 'interval: 1h, 1d, 1w … (1 minute to 31 days)', parseDuration)
    .option('--channels <ids>', 'notification: comma-separated channel ids (default: every channel)')
    .action(
      act(make, async (s, kind: string, o: { every: number; channels?: string }) => {
        if (!['aggregation', 'notification', 'transitions'].includes(kind))
          throw new UsageError('<kind> is aggregation, notification or transitions');
        await created(
          s,
          (c, scope) =>
            c.POST('/v1/schedules', {
              body: {
                ...scope,
                kind: kind as S['CreateScheduleRequest']['kind'],
                interval_ms: o.every,
                enabled: true,
                ...(o.channels ? { channels: commaList(o.channels) } : {}),
              },
            }),
          (sc) =>
            `added schedule ${sc.schedule_id}: ${sc.kind} every ${sc.interval_ms} ms, first run ${s.out.time(sc.next_run_at)}`,
        );
      }),
    );
}

type AlertOptions = {
  tag?: string;
  threshold?: string;
  absent?: string;
  rule?: string;
  window?: number;
  channels?: string;
};

/** The alert condition from exactly one of --tag/--threshold, --absent or --rule. */
function condition(o: AlertOptions): S['CreateAlertRequest']['condition'] {
  const chosen = [o.tag, o.absent, o.rule].filter((x) => x !== undefined).length;
  if (chosen !== 1)
    throw new UsageError(
      'give one condition: --tag <tag> --threshold <n> --window <d>, --absent <action> --window <d>, or --rule <rule_id>',
    );
  if (o.rule) return { type: 'rule_match', rule_id: o.rule };
  if (o.window === undefined) throw new UsageError('--window is required for --tag and --absent');
  if (o.absent) return { type: 'action_absent', action: o.absent, window_ms: o.window };
  if (o.threshold === undefined || !/^\d+$/.test(o.threshold)) throw new UsageError('--tag needs --threshold <n>');
  return { type: 'tag_count', tag: o.tag!, threshold: Number(o.threshold), window_ms: o.window };
}

function alerts(program: Command, make: SessionFactory): void {
  const g = program
    .command('alerts')
    .description('notifications without a trigger: tag counts, silent actions, rule matches');
  listGetDelete(g, make, 'alerts', 'alert_id', fields('alert_id', 'name', 'condition', 'firing', 'last_fired_at'));
  g.command('add')
    .description('add an alert')
    .argument('<name>')
    .option('--tag <tag>', 'fire when more than --threshold sessions got this tag within --window')
    .option('--threshold <n>')
    .option('--absent <action>', 'fire when this action was not seen for --window')
    .option('--rule <rule_id>', 'fire when this classification rule newly matches')
    .option('--window <duration>', '15m, 1h, 1d …', parseDuration)
    .option('--channels <ids>', 'comma-separated channel ids (default: every channel)')
    .action(
      act(make, async (s, name: string, o: AlertOptions) =>
        created(
          s,
          (c, scope) =>
            c.POST('/v1/alerts', {
              body: {
                ...scope,
                name,
                condition: condition(o),
                ...(o.channels ? { channels: commaList(o.channels) } : {}),
              },
            }),
          (a) => `added alert ${a.alert_id} (${a.name})`,
        ),
      ),
    );
}

export function registerOutboundCommands(program: Command, make: SessionFactory): void {
  webhooks(program, make);
  channels(program, make);
  schedules(program, make);
  alerts(program, make);
}
